/* SPDX-License-Identifier: MIT */
/*
 * libthrong_mpi: a throng world split across MPI ranks (throng_mpi.h says
 * what it promises). Built on the core library's public API alone: each
 * rank's local world is an ordinary throng_world in canonical order, and
 * agents move between ranks as throng_agent_state records.
 *
 * A distributed step: every K steps first a rebalance (new boxes by
 * recursive bisection, and the agents to their new owners); then, per
 * tick:
 *   0. counts: each navigation field that counts its crowd this tick
 *      takes the sum over the ranks of their owned agents' counts;
 *   1. ghosts: copies of agents within reach of another rank's box go to
 *      that rank, and of every agent some other rank's agent targets;
 *   2. link: each owned agent's target (kept by host key) to its row;
 *   3. step the local world one tick, in stages: the move, then each
 *      contact pass after the ghosts took their owners' positions
 *      (contact_passes_ranks); keep the owned agents' arrivals at
 *      navigation goals; remove the ghosts;
 *   4. migrate: agents that left this rank's box go to their owners.
 * Between ticks every rank holds exactly the agents in its box. After the
 * ticks every rank gathers every rank's arrivals (nav_gather).
 * Every exchange is one MPI_Alltoall of counts and one MPI_Alltoallv of
 * records; a rank sends only to the ranks it has records for, so the
 * messages counted are those non-empty ones.
 *
 * Refusals: every collective call checks its input on its own rank, then
 * the ranks agree (agree()): one MPI_Allreduce finds the first refusing
 * rank, which broadcasts its status and sentence, and every rank returns
 * them, before anything changed.
 */
#include "throng_mpi.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MPI_ERROR_BYTES 256
#define HIST_BINS 1024
#define PART_MAGIC "THRMPI01"

/* A box per rank, and the tree of cuts that finds a position's rank. */
typedef struct part_node {
    int r0, r1; /* ranks [r0, r1) */
    int axis;   /* the cut's axis, for an inner node */
    double cut; /* left: coordinate < cut */
    int left, right;
    double lo[3], hi[3]; /* the node's box (finite: for the histograms) */
} part_node;

/* key -> target key, open addressing, keys non-zero. */
typedef struct key_map {
    uint64_t *keys, *values;
    size_t cap, count;
} key_map;

/* An arrival at a navigation goal and the tick of the step it came in. */
typedef struct tick_arrival {
    uint32_t tick, pad;
    throng_nav_arrival a;
} tick_arrival;

/* Navigation across the ranks (nav_*): the fields that count their crowd,
 * whose counts are summed over the ranks on the ticks they count; this
 * rank's owned agents' arrivals in the ticks of a step; and every rank's
 * arrivals of the last step, in canonical order. */
typedef struct nav_state {
    int fields;              /* the world has navigation fields */
    throng_object *counting; /* fields with density_interval > 0 */
    uint32_t *interval;
    int *cells; /* each one's cells */
    size_t counting_count;
    uint32_t *counts, *sum; /* one field's cells */
    size_t cells_cap;
    tick_arrival *mine;
    size_t mine_count, mine_cap;
    throng_nav_arrival *all;
    size_t all_count;
    throng_nav_arrival *tick_buf;
    size_t tick_cap;
} nav_state;

/* Contact resolution across the ranks (contact_*): the owned agents sent
 * to each rank as ghosts this tick, and the ghost each record received
 * became, so that their positions can be sent again between the stages
 * of the tick; and the per-row scratch of the passes. */
typedef struct contact_state {
    throng_agent *sent; /* by destination rank, in record order */
    size_t sent_total, sent_cap;
    int *sent_count, *recv_count; /* records per rank, this tick */
    int *floats;      /* 4 x ranks: counts and offsets of the positions */
    long *recv_ghost; /* per record received: its index in ghosts, or -1 */
    size_t recv_total, recv_cap;
    float *out, *in; /* positions, 3 a record */
    size_t out_cap, in_cap;
    throng_agent *set; /* the ghosts given positions, and those */
    float *set_pos;
    size_t set_cap;
    unsigned char *ghost_row; /* 1 for a ghost's row */
    float *prev;              /* each row's position before the pass */
    double *travel;           /* a bound on each row's travel this tick */
    size_t row_cap;
} contact_state;

struct throng_mpi_world {
    MPI_Comm comm;
    int rank, size;
    throng_world *local;
    int dims, periodic;
    float box[3];
    double reach;
    float max_dt;
    uint32_t max_substeps;
    throng_mpi_def def;
    part_node *nodes;
    int node_count;
    int *leaf_of_rank;
    double (*ext_lo)[3], (*ext_hi)[3]; /* rank boxes, infinite outside */
    key_map targets;
    throng_agent *ghosts;
    size_t ghost_count, ghost_cap;
    nav_state nav;
    contact_state contact;
    int *near, near_count; /* the other ranks whose boxes are within reach */
    unsigned char *mark;   /* the border scan's scratch (border_rows) */
    uint32_t *rows;
    size_t scan_cap;
    uint64_t steps;
    throng_mpi_stats stats;
    char error[MPI_ERROR_BYTES + 32];
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static double now(void) {
    return MPI_Wtime();
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

static uint64_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Collectives that wait politely: with def.poll_sleep_us 0 each is MPI's
 * own blocking call; otherwise its non-blocking twin, tested in a short
 * spin and then between sleeps of that many microseconds, so a rank
 * waiting for others leaves its core to them (more ranks than cores:
 * MPICH's waits spin). The results are the same either way. */
static void wait_for(unsigned us, MPI_Request *q) {
    int done = 0;
    for (unsigned k = 0;; k++) {
        MPI_Test(q, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        if (k >= 200u) {
            struct timespec ts = { 0, (long)us * 1000L };
            nanosleep(&ts, NULL);
        }
    }
}

static void c_allreduce(unsigned us, const void *s, void *r, int n,
                        MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    if (!us) {
        MPI_Allreduce(s, r, n, t, op, comm);
        return;
    }
    MPI_Request q;
    MPI_Iallreduce(s, r, n, t, op, comm, &q);
    wait_for(us, &q);
}

/* An alltoallv of floats and an allreduce (MAX) of doubles at once: the
 * two wait together. */
static void c_alltoallv_max(unsigned us, const float *s, const int *sc,
                            const int *sd, float *r, const int *rc,
                            const int *rd, const double *ms, double *mr, int n,
                            MPI_Comm comm) {
    MPI_Request q[2];
    MPI_Ialltoallv(s, sc, sd, MPI_FLOAT, r, rc, rd, MPI_FLOAT, comm, &q[0]);
    MPI_Iallreduce(ms, mr, n, MPI_DOUBLE, MPI_MAX, comm, &q[1]);
    if (!us) {
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
        return;
    }
    wait_for(us, &q[0]);
    wait_for(us, &q[1]);
}

static void c_bcast(unsigned us, void *b, int n, MPI_Datatype t, int root,
                    MPI_Comm comm) {
    if (!us) {
        MPI_Bcast(b, n, t, root, comm);
        return;
    }
    MPI_Request q;
    MPI_Ibcast(b, n, t, root, comm, &q);
    wait_for(us, &q);
}

static void c_alltoall(unsigned us, const void *s, int sn, MPI_Datatype st,
                       void *r, int rn, MPI_Datatype rt, MPI_Comm comm) {
    if (!us) {
        MPI_Alltoall(s, sn, st, r, rn, rt, comm);
        return;
    }
    MPI_Request q;
    MPI_Ialltoall(s, sn, st, r, rn, rt, comm, &q);
    wait_for(us, &q);
}

static void c_alltoallv(unsigned us, const void *s, const int *sc,
                        const int *sd, MPI_Datatype st, void *r, const int *rc,
                        const int *rd, MPI_Datatype rt, MPI_Comm comm) {
    if (!us) {
        MPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, comm);
        return;
    }
    MPI_Request q;
    MPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, comm, &q);
    wait_for(us, &q);
}

static void c_allgather(unsigned us, const void *s, int sn, MPI_Datatype st,
                        void *r, int rn, MPI_Datatype rt, MPI_Comm comm) {
    if (!us) {
        MPI_Allgather(s, sn, st, r, rn, rt, comm);
        return;
    }
    MPI_Request q;
    MPI_Iallgather(s, sn, st, r, rn, rt, comm, &q);
    wait_for(us, &q);
}

static void c_allgatherv(unsigned us, const void *s, int sn, MPI_Datatype st,
                         void *r, const int *rc, const int *rd, MPI_Datatype rt,
                         MPI_Comm comm) {
    if (!us) {
        MPI_Allgatherv(s, sn, st, r, rc, rd, rt, comm);
        return;
    }
    MPI_Request q;
    MPI_Iallgatherv(s, sn, st, r, rc, rd, rt, comm, &q);
    wait_for(us, &q);
}

static void c_gather(unsigned us, const void *s, int sn, MPI_Datatype st,
                     void *r, int rn, MPI_Datatype rt, int root,
                     MPI_Comm comm) {
    if (!us) {
        MPI_Gather(s, sn, st, r, rn, rt, root, comm);
        return;
    }
    MPI_Request q;
    MPI_Igather(s, sn, st, r, rn, rt, root, comm, &q);
    wait_for(us, &q);
}

static void c_gatherv(unsigned us, const void *s, int sn, MPI_Datatype st,
                      void *r, const int *rc, const int *rd, MPI_Datatype rt,
                      int root, MPI_Comm comm) {
    if (!us) {
        MPI_Gatherv(s, sn, st, r, rc, rd, rt, root, comm);
        return;
    }
    MPI_Request q;
    MPI_Igatherv(s, sn, st, r, rc, rd, rt, root, comm, &q);
    wait_for(us, &q);
}

static int map_reserve(key_map *m, size_t want) {
    if (want * 2 <= m->cap)
        return 0;
    size_t cap = m->cap ? m->cap : 64;
    while (want * 2 > cap)
        cap *= 2;
    uint64_t *k = calloc(cap, sizeof *k), *v = calloc(cap, sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return 1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = (size_t)mix(0, m->keys[i]) & (cap - 1);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = m->keys[i];
        v[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = k;
    m->values = v;
    m->cap = cap;
    return 0;
}

static size_t map_slot(const key_map *m, uint64_t key) {
    size_t j = (size_t)mix(0, key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    return j;
}

/* Sets key -> value; value 0 removes it. 1 when out of memory. */
static int map_set(key_map *m, uint64_t key, uint64_t value) {
    if (!value) {
        if (!m->cap)
            return 0;
        size_t j = map_slot(m, key);
        if (!m->keys[j])
            return 0;
        /* Backward-shift deletion keeps the probe chains whole. */
        m->keys[j] = 0;
        m->count--;
        size_t i = (j + 1) & (m->cap - 1);
        while (m->keys[i]) {
            uint64_t k = m->keys[i], v = m->values[i];
            m->keys[i] = 0;
            m->count--;
            size_t s = map_slot(m, k);
            m->keys[s] = k;
            m->values[s] = v;
            m->count++;
            i = (i + 1) & (m->cap - 1);
        }
        return 0;
    }
    if (map_reserve(m, m->count + 1))
        return 1;
    size_t j = map_slot(m, key);
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->count++;
    }
    m->values[j] = value;
    return 0;
}

static uint64_t map_get(const key_map *m, uint64_t key) {
    if (!m->cap)
        return 0;
    size_t j = map_slot(m, key);
    return m->keys[j] ? m->values[j] : 0;
}

/* Records this rank's refusal sentence; returns the status. */
static throng_status fail(throng_mpi_world *dw, char *msg, throng_status st,
                          const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static throng_status fail(throng_mpi_world *dw, char *msg, throng_status st,
                          const char *fmt, ...) {
    (void)dw;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, MPI_ERROR_BYTES, fmt, ap);
    va_end(ap);
    return st;
}

/* The ranks agree on a check: THRONG_OK when every rank's `st` is;
 * otherwise the first refusing rank's status, its sentence in dw->error
 * (or `error` when there is no world yet) on every rank. */
static throng_status agree_on(MPI_Comm comm, int rank, unsigned us,
                              throng_status st, const char *msg, char *error,
                              size_t cap) {
    int mine = st != THRONG_OK ? rank : INT32_MAX, first = INT32_MAX;
    c_allreduce(us, &mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT32_MAX)
        return THRONG_OK;
    char text[MPI_ERROR_BYTES];
    int code = (int)st;
    memset(text, 0, sizeof text);
    if (rank == first)
        snprintf(text, sizeof text, "%s", msg);
    c_bcast(us, text, MPI_ERROR_BYTES, MPI_CHAR, first, comm);
    c_bcast(us, &code, 1, MPI_INT, first, comm);
    text[MPI_ERROR_BYTES - 1] = '\0';
    if (error)
        snprintf(error, cap, "rank %d: %s", first, text);
    return (throng_status)code;
}

static throng_status agree(throng_mpi_world *dw, throng_status st,
                           const char *msg) {
    return agree_on(dw->comm, dw->rank, dw->def.poll_sleep_us, st, msg,
                    dw->error, sizeof dw->error);
}

/* ------------------------------------------------------------------------ */
/* Records in flight                                                        */
/* ------------------------------------------------------------------------ */

/* Per-destination buffers of throng_agent_state records. */
typedef struct outbox {
    throng_agent_state **rec;
    throng_agent **who; /* the local agent of each record (ghosts) */
    size_t *count, *cap;
    int size;
} outbox;

static int outbox_init(outbox *o, int size) {
    o->size = size;
    o->rec = calloc((size_t)size, sizeof *o->rec);
    o->who = calloc((size_t)size, sizeof *o->who);
    o->count = calloc((size_t)size, sizeof *o->count);
    o->cap = calloc((size_t)size, sizeof *o->cap);
    return !o->rec || !o->who || !o->count || !o->cap;
}

static void outbox_free(outbox *o) {
    for (int r = 0; o->rec && r < o->size; r++)
        free(o->rec[r]);
    for (int r = 0; o->who && r < o->size; r++)
        free(o->who[r]);
    free(o->rec);
    free(o->who);
    free(o->count);
    free(o->cap);
}

/* Adds a record for rank `to`; `who` (may be NULL) is the local agent it
 * copies, kept beside it. */
static int outbox_put_from(outbox *o, int to, const throng_agent_state *s,
                           const throng_agent *who) {
    if (o->count[to] == o->cap[to]) {
        size_t cap = o->cap[to] ? 2 * o->cap[to] : 64;
        throng_agent_state *r = realloc(o->rec[to], cap * sizeof *r);
        if (!r)
            return 1;
        o->rec[to] = r;
        throng_agent *h = realloc(o->who[to], cap * sizeof *h);
        if (!h)
            return 1;
        o->who[to] = h;
        o->cap[to] = cap;
    }
    const throng_agent none = { 0, 0, 0 };
    o->who[to][o->count[to]] = who ? *who : none;
    o->rec[to][o->count[to]++] = *s;
    return 0;
}

static int outbox_put(outbox *o, int to, const throng_agent_state *s) {
    return outbox_put_from(o, to, s, NULL);
}

/* Sends every rank its records, receives this rank's: *in (malloc'd),
 * *in_count. Counts bytes and messages into the stats. */
static int exchange(throng_mpi_world *dw, const outbox *o,
                    throng_agent_state **in, size_t *in_count,
                    int *recv_records) {
    const int P = dw->size;
    const int rec = (int)sizeof(throng_agent_state);
    int *sc = calloc((size_t)P, sizeof *sc),
        *rc = calloc((size_t)P, sizeof *rc);
    int *sd = calloc((size_t)P, sizeof *sd),
        *rd = calloc((size_t)P, sizeof *rd);
    throng_agent_state *send = NULL, *recv = NULL;
    if (!sc || !rc || !sd || !rd) {
        /* Without its count arrays a rank cannot take part at all. */
        free(sc), free(rc), free(sd), free(rd);
        return 1;
    }
    size_t total = 0;
    for (int r = 0; r < P; r++)
        total += o->count[r];
    send = malloc((total ? total : 1) * sizeof *send);
    /* A rank without its send buffer sends nothing and fails the call
     * after the exchange, which every rank still completes. */
    int lost = !send, failed = 0;
    size_t at = 0;
    for (int r = 0; r < P; r++) {
        sc[r] = lost ? 0 : (int)o->count[r] * rec;
        sd[r] = (int)at * rec;
        if (o->count[r] && !lost)
            memcpy(send + at, o->rec[r], o->count[r] * sizeof *send);
        at += o->count[r];
        if (r != dw->rank && o->count[r]) {
            dw->stats.bytes_sent += (uint64_t)sc[r];
            dw->stats.messages_sent++;
        }
    }
    c_alltoall(dw->def.poll_sleep_us, sc, 1, MPI_INT, rc, 1, MPI_INT, dw->comm);
    size_t got = 0;
    for (int r = 0; r < P; r++) {
        rd[r] = (int)got;
        got += (size_t)rc[r];
    }
    recv = malloc(got ? got : 1);
    int bad = !recv;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    if (failed) {
        free(sc), free(rc), free(sd), free(rd), free(send), free(recv);
        return 1;
    }
    c_alltoallv(dw->def.poll_sleep_us, send, sc, sd, MPI_BYTE, recv, rc, rd,
                MPI_BYTE, dw->comm);
    for (int r = 0; recv_records && r < P; r++)
        recv_records[r] = rc[r] / rec;
    free(sc), free(rc), free(sd), free(rd), free(send);
    *in = recv;
    *in_count = got / (size_t)rec;
    return lost;
}

/* ------------------------------------------------------------------------ */
/* The partition                                                            */
/* ------------------------------------------------------------------------ */

/* The leaf holding a position. */
static int leaf_at(const throng_mpi_world *dw, const float p[3]) {
    int n = 0;
    /* Down to a leaf: a node not (yet) cut has no children. */
    while (dw->nodes[n].left != 0) {
        const part_node *q = &dw->nodes[n];
        n = (double)p[q->axis] < q->cut ? q->left : q->right;
    }
    return n;
}

int throng_mpi_world_rank_of(const throng_mpi_world *dw, const float p[3]) {
    if (!dw || !p)
        return -1;
    for (int a = 0; a < dw->dims; a++)
        if (!isfinite(p[a]))
            return -1;
    return dw->nodes[leaf_at(dw, p)].r0;
}

/* The gap between [alo, ahi) and [blo, bhi) along an axis, periodic of
 * edge L (the nearest of the images one edge either way) or L = 0. */
static double interval_gap(double alo, double ahi, double blo, double bhi,
                           double L) {
    double best = HUGE_VAL;
    const int images = L > 0.0 ? 3 : 1;
    for (int k = 0; k < images; k++) {
        const double s = L > 0.0 ? (double)(k - 1) * L : 0.0;
        double g = blo + s - ahi;
        const double g2 = alo - (bhi + s);
        if (g2 > g)
            g = g2;
        if (g < 0.0)
            g = 0.0;
        if (g < best)
            best = g;
    }
    return best;
}

/* The ranks whose boxes come within reach of this rank's (per axis, as
 * near_rank tests a point): only they can be sent ghosts of its agents,
 * so the border rows are tested against a handful of boxes, not all P.
 * 1 when out of memory. */
static int near_boxes(throng_mpi_world *dw) {
    int *near =
        realloc(dw->near, (size_t)(dw->size > 1 ? dw->size : 1) * sizeof *near);
    if (!near)
        return 1;
    dw->near = near;
    dw->near_count = 0;
    const int me = dw->rank;
    for (int r = 0; r < dw->size; r++) {
        if (r == me)
            continue;
        int close = 1;
        for (int a = 0; a < dw->dims && close; a++) {
            const double L = dw->periodic ? (double)dw->box[a] : 0.0;
            const double gap =
                interval_gap(dw->ext_lo[me][a], dw->ext_hi[me][a],
                             dw->ext_lo[r][a], dw->ext_hi[r][a], L);
            /* A margin: a superset of the ranks near_rank accepts. */
            close = !(gap > dw->reach * (1.0 + 1e-6) + 1e-6);
        }
        if (close)
            near[dw->near_count++] = r;
    }
    return 0;
}

/* Builds the boxes by recursive bisection of `n` positions (xyz triples)
 * contributed by this rank, all ranks together: level by level, one
 * histogram per node to split along its longest edge, summed over the
 * ranks, cut where the left part's share of ranks has its share of the
 * agents. Every rank computes the same tree from the same sums. */
static int partition(throng_mpi_world *dw, const float *pos, size_t n) {
    const int P = dw->size;
    double lo[3] = { 0, 0, 0 }, hi[3] = { 1, 1, 1 };
    if (dw->periodic) {
        for (int a = 0; a < 3; a++)
            hi[a] = a < dw->dims ? (double)dw->box[a] : 1.0;
    } else {
        double mn[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL },
               mx[3] = { -HUGE_VAL, -HUGE_VAL, -HUGE_VAL };
        for (size_t i = 0; i < n; i++)
            for (int a = 0; a < dw->dims; a++) {
                mn[a] = fmin(mn[a], (double)pos[3 * i + a]);
                mx[a] = fmax(mx[a], (double)pos[3 * i + a]);
            }
        double gmn[3], gmx[3];
        c_allreduce(dw->def.poll_sleep_us, mn, gmn, 3, MPI_DOUBLE, MPI_MIN,
                    dw->comm);
        c_allreduce(dw->def.poll_sleep_us, mx, gmx, 3, MPI_DOUBLE, MPI_MAX,
                    dw->comm);
        for (int a = 0; a < dw->dims; a++) {
            if (!(gmn[a] <= gmx[a])) {
                gmn[a] = 0.0;
                gmx[a] = 1.0;
            }
            lo[a] = gmn[a];
            hi[a] = gmx[a] + 1e-6 * (1.0 + fabs(gmx[a]));
        }
    }
    part_node *nodes = calloc((size_t)(2 * P), sizeof *nodes);
    if (!nodes)
        return 1;
    int count = 1;
    nodes[0].r0 = 0;
    nodes[0].r1 = P;
    memcpy(nodes[0].lo, lo, sizeof lo);
    memcpy(nodes[0].hi, hi, sizeof hi);
    int *split = malloc((size_t)P * sizeof *split);
    uint64_t *hist = NULL, *sum = NULL;
    for (;;) {
        int k = 0;
        for (int i = 0; i < count; i++)
            if (nodes[i].r1 - nodes[i].r0 > 1 && nodes[i].left == 0)
                split[k++] = i;
        if (k == 0)
            break;
        for (int j = 0; j < k; j++) {
            part_node *q = &nodes[split[j]];
            int axis = 0;
            for (int a = 1; a < dw->dims; a++)
                if (q->hi[a] - q->lo[a] > q->hi[axis] - q->lo[axis])
                    axis = a;
            q->axis = axis;
        }
        free(hist);
        free(sum);
        hist = calloc((size_t)k * HIST_BINS, sizeof *hist);
        sum = calloc((size_t)k * HIST_BINS, sizeof *sum);
        if (!hist || !sum)
            break; /* every rank then uses the halves: see below */
        /* The nodes being split are the current leaves with > 1 rank. */
        dw->nodes = nodes;
        for (size_t i = 0; i < n; i++) {
            int leaf = leaf_at(dw, &pos[3 * i]);
            int j = 0;
            while (j < k && split[j] != leaf)
                j++;
            if (j == k)
                continue;
            const part_node *q = &nodes[leaf];
            double t = ((double)pos[3 * i + q->axis] - q->lo[q->axis]) /
                       (q->hi[q->axis] - q->lo[q->axis]);
            int b = (int)(t * HIST_BINS);
            b = b < 0 ? 0 : (b >= HIST_BINS ? HIST_BINS - 1 : b);
            hist[(size_t)j * HIST_BINS + (size_t)b]++;
        }
        c_allreduce(dw->def.poll_sleep_us, hist, sum, k * HIST_BINS,
                    MPI_UINT64_T, MPI_SUM, dw->comm);
        for (int j = 0; j < k; j++) {
            part_node *q = &nodes[split[j]];
            const int ranks = q->r1 - q->r0, left = ranks / 2;
            const uint64_t *h = &sum[(size_t)j * HIST_BINS];
            uint64_t total = 0;
            for (int b = 0; b < HIST_BINS; b++)
                total += h[b];
            /* The left part's share of the agents, rounded. */
            const uint64_t want =
                (total * (uint64_t)left * 2 + (uint64_t)ranks) /
                (2 * (uint64_t)ranks);
            int cut = HIST_BINS / 2;
            if (total > 0) {
                uint64_t run = 0;
                cut = 1;
                for (int b = 0; b < HIST_BINS - 1; b++) {
                    run += h[b];
                    cut = b + 1;
                    if (run >= want)
                        break;
                }
            }
            const double w = q->hi[q->axis] - q->lo[q->axis];
            q->cut = q->lo[q->axis] + w * (double)cut / HIST_BINS;
            part_node *l = &nodes[count], *r = &nodes[count + 1];
            memset(l, 0, sizeof *l);
            memset(r, 0, sizeof *r);
            *l = *q;
            *r = *q;
            l->left = l->right = r->left = r->right = 0;
            l->r1 = q->r0 + left;
            r->r0 = q->r0 + left;
            l->hi[q->axis] = q->cut;
            r->lo[q->axis] = q->cut;
            q->left = count;
            q->right = count + 1;
            count += 2;
        }
    }
    free(hist);
    free(sum);
    free(split);
    /* The boxes of the ranks, infinite where a box reaches the root's
     * face in unbounded space. */
    for (int i = 0; i < count; i++) {
        if (nodes[i].r1 - nodes[i].r0 != 1)
            continue;
        const int r = nodes[i].r0;
        dw->leaf_of_rank[r] = i;
        for (int a = 0; a < 3; a++) {
            dw->ext_lo[r][a] = nodes[i].lo[a];
            dw->ext_hi[r][a] = nodes[i].hi[a];
            if (!dw->periodic && a < dw->dims) {
                if (nodes[i].lo[a] <= lo[a])
                    dw->ext_lo[r][a] = -HUGE_VAL;
                if (nodes[i].hi[a] >= hi[a])
                    dw->ext_hi[r][a] = HUGE_VAL;
            }
        }
    }
    if (dw->nodes != nodes)
        free(dw->nodes);
    dw->nodes = nodes;
    dw->node_count = count;
    return near_boxes(dw);
}

/* The distance from x to [lo, hi) along an axis (periodic of edge L, or
 * L = 0 for unbounded). */
static double axis_distance(double x, double lo, double hi, double L) {
    if (x >= lo && x < hi)
        return 0.0;
    if (L <= 0.0)
        return x < lo ? lo - x : x - hi;
    double d1 = fmod(lo - x + 2.0 * L, L), d2 = fmod(x - hi + 2.0 * L, L);
    return d1 < d2 ? d1 : d2;
}

/* Whether p lies within reach of rank r's box (each axis's distance
 * within reach: the box of reach around the point, a superset of the
 * sphere). */
static int near_rank(const throng_mpi_world *dw, const float p[3], int r) {
    for (int a = 0; a < dw->dims; a++) {
        double L = dw->periodic ? (double)dw->box[a] : 0.0;
        if (axis_distance((double)p[a], dw->ext_lo[r][a], dw->ext_hi[r][a], L) >
            dw->reach)
            return 0;
    }
    return 1;
}

/* The border scan: the rows of `cols` within reach of a face of this
 * rank's box (the others are deep inside it: no other box within reach),
 * into rows[], their count returned. The test runs per axis in double,
 * over the position columns
 * alone: a pass that vectorises, split over the rank's threads (each
 * thread marks its stretch of rows, then one pass lists the marked rows in
 * row order, so the list does not depend on the threads). Only the rows
 * listed pay for the per-rank distance tests, exports and lookups. */
static uint32_t border_rows(const throng_mpi_world *dw,
                            const throng_columns *cols, unsigned char *mark,
                            uint32_t *rows) {
    const uint32_t n = cols->count;
    double lo[3] = { -HUGE_VAL, -HUGE_VAL, -HUGE_VAL },
           hi[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL };
    const float *x[3] = { cols->px, cols->py, cols->pz };
    const double reach = dw->reach;
    int axes = 0, axis[3] = { 0, 0, 0 };
    for (int a = 0; a < dw->dims; a++) {
        const double l = dw->ext_lo[dw->rank][a], h = dw->ext_hi[dw->rank][a];
        if (dw->periodic && l <= 0.0 && h >= (double)dw->box[a])
            continue; /* the box spans the axis: no face on it */
        lo[axes] = l;
        hi[axes] = h;
        axis[axes++] = a;
    }
    if (axes == 0)
        return 0;
    uint32_t count = 0;
#ifdef _OPENMP
    const int threads =
        dw->def.threads > 0 ? dw->def.threads : omp_get_max_threads();
    if (threads > 1 && n >= 16384u) {
        memset(mark, 0, n);
        for (int k = 0; k < axes; k++) {
            const float *restrict c = x[axis[k]];
            unsigned char *restrict m = mark;
            const double l = lo[k], h = hi[k];
#pragma omp parallel for schedule(static) num_threads(threads)
            for (uint32_t i = 0; i < n; i++) {
                const double v = (double)c[i];
                m[i] |= (unsigned char)((v - l <= reach) | (h - v <= reach));
            }
        }
        for (uint32_t i = 0; i < n; i++)
            if (mark[i])
                rows[count++] = i;
        return count;
    }
#endif
    (void)mark;
    /* One thread: one pass, each row written and kept when near (no
     * branch to mispredict), with a loop of its own for the common case
     * of one axis with faces (slabs). */
    const float *restrict c0 = x[axis[0]];
    const double l0 = lo[0], h0 = hi[0];
    if (axes == 1) {
        for (uint32_t i = 0; i < n; i++) {
            const double v = (double)c0[i];
            rows[count] = i;
            count += (uint32_t)(v - l0 <= reach) | (uint32_t)(h0 - v <= reach);
        }
        return count;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t near = 0;
        for (int k = 0; k < axes; k++) {
            const double v = (double)x[axis[k]][i];
            near |=
                (uint32_t)(v - lo[k] <= reach) | (uint32_t)(hi[k] - v <= reach);
        }
        rows[count] = i;
        count += near;
    }
    return count;
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */
/* ------------------------------------------------------------------------ */

throng_mpi_def throng_mpi_def_default(void) {
    throng_mpi_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static throng_status local_state(throng_mpi_world *dw, throng_agent a,
                                 throng_agent_state *s) {
    throng_status st = throng_agent_export(dw->local, a, s);
    if (st == THRONG_OK)
        s->target_key = map_get(&dw->targets, s->host_key);
    return st;
}

/* Imports received states as owned agents (targets into the map), in one
 * call; `in` loses its target keys. */
static throng_status adopt(throng_mpi_world *dw, throng_agent_state *in,
                           size_t n, char *msg) {
    for (size_t i = 0; i < n; i++) {
        if (map_set(&dw->targets, in[i].host_key, in[i].target_key))
            return fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY,
                        "no memory for the target table");
        in[i].target_key = 0;
    }
    throng_status st = throng_agents_import(dw->local, (uint32_t)n, in, NULL);
    if (st != THRONG_OK)
        return fail(dw, msg, st, "%s", throng_world_last_error(dw->local));
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Navigation across the ranks                                              */
/* ------------------------------------------------------------------------ */

static void nav_free(nav_state *n) {
    free(n->counting);
    free(n->interval);
    free(n->cells);
    free(n->counts);
    free(n->sum);
    free(n->mine);
    free(n->all);
    free(n->tick_buf);
    memset(n, 0, sizeof *n);
}

/* The local world's navigation fields, and those that count their crowd
 * (the same on every rank: the same definition). 1 when out of memory. */
static int nav_scan(throng_mpi_world *dw) {
    nav_state *n = &dw->nav;
    const uint32_t objects = throng_world_object_count(dw->local);
    n->counting = malloc((objects ? objects : 1) * sizeof *n->counting);
    n->interval = malloc((objects ? objects : 1) * sizeof *n->interval);
    n->cells = malloc((objects ? objects : 1) * sizeof *n->cells);
    if (!n->counting || !n->interval || !n->cells)
        return 1;
    uint64_t cells = 0;
    for (uint32_t i = 0; i < objects; i++) {
        throng_object o;
        throng_object_info info;
        throng_nav_field_info nav;
        if (throng_world_object_at(dw->local, i, &o) != THRONG_OK ||
            throng_object_get(dw->local, o, &info) != THRONG_OK ||
            info.kind != THRONG_OBJECT_NAV ||
            throng_nav_field_get(dw->local, o, &nav) != THRONG_OK)
            continue;
        n->fields = 1;
        if (!nav.def.density_interval)
            continue;
        if (nav.cells > (uint64_t)INT32_MAX)
            return 1;
        n->counting[n->counting_count] = o;
        n->cells[n->counting_count] = (int)nav.cells;
        n->interval[n->counting_count++] = nav.def.density_interval;
        cells = nav.cells > cells ? nav.cells : cells;
    }
    n->counts = malloc((cells ? cells : 1) * sizeof *n->counts);
    n->sum = malloc((cells ? cells : 1) * sizeof *n->sum);
    n->cells_cap = (size_t)cells;
    return !n->counts || !n->sum;
}

/* Before a tick's ghosts come in, while this rank holds exactly the
 * agents it owns: each field whose count is due this tick counts them,
 * the counts are summed over the ranks (integers: exact, in any order),
 * and the sum, the whole crowd's counts, is what the field counts in the
 * step (throng_nav_field_supply_counts), as one world counts its crowd. */
static throng_status nav_supply_counts(throng_mpi_world *dw, char *msg) {
    nav_state *n = &dw->nav;
    const uint64_t step = throng_world_step_count(dw->local);
    throng_status st = THRONG_OK;
    for (size_t i = 0; i < n->counting_count; i++) {
        if (step % n->interval[i] != 0u)
            continue;
        throng_status got = throng_nav_field_count_agents(
            dw->local, n->counting[i], n->counts, n->cells_cap, NULL);
        if (got != THRONG_OK && st == THRONG_OK)
            st = fail(dw, msg, got, "%s", throng_world_last_error(dw->local));
        /* Every rank sums, whatever it found: the same calls, of the
         * same sizes (the same fields), everywhere. */
        c_allreduce(dw->def.poll_sleep_us, n->counts, n->sum, n->cells[i],
                    MPI_UINT32_T, MPI_SUM, dw->comm);
        if (st == THRONG_OK) {
            got = throng_nav_field_supply_counts(dw->local, n->counting[i],
                                                 n->sum);
            if (got != THRONG_OK)
                st = fail(dw, msg, got, "%s",
                          throng_world_last_error(dw->local));
        }
    }
    return st;
}

static int cmp_slot(const void *a, const void *b) {
    const throng_agent *x = a, *y = b;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int cmp_tick_arrival(const void *a, const void *b) {
    const tick_arrival *x = a, *y = b;
    if (x->tick != y->tick)
        return x->tick < y->tick ? -1 : 1;
    return x->a.host_key < y->a.host_key ? -1 : x->a.host_key > y->a.host_key;
}

/* After a tick's local step, before its ghosts leave: the arrivals of the
 * agents this rank owns (a ghost arrives on its owner's rank too, which
 * lists it; the core removed the ghost, which is thrown away anyway),
 * kept with the tick; an owned agent removed on arrival is forgotten by
 * the target table. */
static throng_status nav_collect(throng_mpi_world *dw, uint32_t tick,
                                 char *msg) {
    nav_state *n = &dw->nav;
    if (!n->fields)
        return THRONG_OK;
    uint32_t count = 0;
    throng_world_nav_arrivals(dw->local, NULL, 0, &count, NULL);
    if (!count)
        return THRONG_OK;
    if (count > n->tick_cap) {
        throng_nav_arrival *b = realloc(n->tick_buf, count * sizeof *b);
        if (!b)
            return fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        n->tick_buf = b;
        n->tick_cap = count;
    }
    if (n->mine_count + count > n->mine_cap) {
        size_t cap = 2 * (n->mine_count + count);
        tick_arrival *m = realloc(n->mine, cap * sizeof *m);
        if (!m)
            return fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        n->mine = m;
        n->mine_cap = cap;
    }
    throng_world_nav_arrivals(dw->local, n->tick_buf, count, &count, NULL);
    /* Ghost handles by slot, to tell a ghost's arrival from an owned
     * agent's. */
    throng_agent *ghosts =
        malloc((dw->ghost_count ? dw->ghost_count : 1) * sizeof *ghosts);
    if (!ghosts)
        return fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    if (dw->ghost_count)
        memcpy(ghosts, dw->ghosts, dw->ghost_count * sizeof *ghosts);
    qsort(ghosts, dw->ghost_count, sizeof *ghosts, cmp_slot);
    for (uint32_t i = 0; i < count; i++) {
        const throng_nav_arrival *a = &n->tick_buf[i];
        const throng_agent *g = bsearch(&a->agent, ghosts, dw->ghost_count,
                                        sizeof *ghosts, cmp_slot);
        if (g && g->generation == a->agent.generation)
            continue;
        tick_arrival *t = &n->mine[n->mine_count++];
        memset(t, 0, sizeof *t);
        t->tick = tick;
        t->a = *a;
        t->a.agent = (throng_agent){ 0, 0, 0 };
        if (a->removed)
            map_set(&dw->targets, a->host_key, 0);
    }
    free(ghosts);
    return THRONG_OK;
}

static void forget_targets(throng_mpi_world *dw, uint64_t *keys, size_t n);

/* After a step's ticks: every rank's arrivals to every rank, in the order
 * of their ticks and, within a tick, of their host keys; the targets of
 * agents removed on arrival are forgotten everywhere, as a removed
 * agent's links go stale in one world. */
static throng_status nav_gather(throng_mpi_world *dw, char *msg) {
    nav_state *n = &dw->nav;
    n->all_count = 0;
    if (!n->fields)
        return THRONG_OK;
    const int P = dw->size;
    const int rec = (int)sizeof(tick_arrival);
    int *counts = calloc((size_t)P, sizeof *counts),
        *displs = calloc((size_t)P, sizeof *displs);
    int mine = (int)n->mine_count * rec, bad = !counts || !displs, failed = 0;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    throng_status st = THRONG_OK;
    tick_arrival *all = NULL;
    uint64_t *removed = NULL;
    if (failed) {
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        goto done;
    }
    c_allgather(dw->def.poll_sleep_us, &mine, 1, MPI_INT, counts, 1, MPI_INT,
                dw->comm);
    int total = 0;
    for (int r = 0; r < P; r++) {
        displs[r] = total;
        total += counts[r];
    }
    if (total == 0)
        goto done;
    const size_t got = (size_t)total / (size_t)rec;
    all = malloc((size_t)total);
    removed = malloc(got * sizeof *removed);
    throng_nav_arrival *out = realloc(n->all, got * sizeof *out);
    if (out)
        n->all = out;
    bad = !all || !removed || !out;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    if (failed) {
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        goto done;
    }
    c_allgatherv(dw->def.poll_sleep_us, n->mine, mine, MPI_BYTE, all, counts,
                 displs, MPI_BYTE, dw->comm);
    qsort(all, got, sizeof *all, cmp_tick_arrival);
    size_t nremoved = 0;
    const uint64_t id = throng_world_id(dw->local);
    for (size_t i = 0; i < got; i++) {
        n->all[i] = all[i].a;
        n->all[i].field.world = id;
        if (all[i].a.removed)
            removed[nremoved++] = all[i].a.host_key;
    }
    n->all_count = got;
    if (nremoved)
        forget_targets(dw, removed, nremoved);
done:
    n->mine_count = 0;
    free(all);
    free(removed);
    free(counts);
    free(displs);
    return st;
}

/* Room for the border scan of n rows; 1 when out of memory. */
static int scan_reserve(throng_mpi_world *dw, size_t n) {
    if (n <= dw->scan_cap && dw->mark)
        return 0;
    size_t cap = n > 64 ? n + n / 4 : 64;
    unsigned char *m = realloc(dw->mark, cap);
    if (m)
        dw->mark = m;
    uint32_t *r = m ? realloc(dw->rows, cap * sizeof *r) : NULL;
    if (!r)
        return 1;
    dw->rows = r;
    dw->scan_cap = cap;
    return 0;
}

static throng_mpi_world *world_alloc(MPI_Comm comm, const throng_mpi_def *def) {
    throng_mpi_world *dw = calloc(1, sizeof *dw);
    if (!dw)
        return NULL;
    MPI_Comm_dup(comm, &dw->comm);
    MPI_Comm_rank(dw->comm, &dw->rank);
    MPI_Comm_size(dw->comm, &dw->size);
    dw->def = def ? *def : throng_mpi_def_default();
    dw->leaf_of_rank = calloc((size_t)dw->size, sizeof *dw->leaf_of_rank);
    dw->ext_lo = calloc((size_t)dw->size, sizeof *dw->ext_lo);
    dw->ext_hi = calloc((size_t)dw->size, sizeof *dw->ext_hi);
    return dw;
}

void throng_mpi_world_destroy(throng_mpi_world *dw) {
    if (!dw)
        return;
    throng_world_destroy(dw->local);
    free(dw->nodes);
    free(dw->leaf_of_rank);
    free(dw->ext_lo);
    free(dw->ext_hi);
    free(dw->targets.keys);
    free(dw->targets.values);
    free(dw->ghosts);
    nav_free(&dw->nav);
    contact_state *cs = &dw->contact;
    free(cs->sent), free(cs->sent_count), free(cs->recv_count);
    free(cs->floats);
    free(cs->recv_ghost), free(cs->out), free(cs->in), free(cs->set);
    free(cs->set_pos), free(cs->ghost_row), free(cs->prev), free(cs->travel);
    free(dw->mark);
    free(dw->rows);
    free(dw->near);
    MPI_Comm_free(&dw->comm);
    free(dw);
}

/* A copy of `world`'s definition, without agents, in canonical order. */
static throng_status definition_copy(const throng_world *world, int threads,
                                     throng_world **out, char *msg) {
    size_t bytes = 0;
    throng_status st = throng_world_snapshot_size(world, &bytes);
    void *buf = st == THRONG_OK ? malloc(bytes) : NULL;
    if (st == THRONG_OK && !buf)
        st = THRONG_ERR_OUT_OF_MEMORY;
    if (st == THRONG_OK)
        st = throng_world_save(world, buf, bytes, NULL);
    throng_world *w = NULL;
    if (st == THRONG_OK)
        st = throng_world_load(buf, bytes, NULL, &w);
    free(buf);
    if (st != THRONG_OK) {
        snprintf(msg, MPI_ERROR_BYTES, "the world could not be copied: %s",
                 throng_status_string(st));
        return st;
    }
    while (throng_world_agent_count(w) > 0) {
        throng_agent a;
        throng_agent_at(w, throng_world_agent_count(w) - 1, &a);
        throng_agent_remove(w, a);
    }
    throng_world_set_canonical_order(w, true);
    if (threads > 0)
        throng_world_set_threads(w, threads);
    *out = w;
    return THRONG_OK;
}

/* The rest of creation, from a definition world and the states this rank
 * contributes (their target keys set). */
static throng_status create_from(MPI_Comm comm, throng_world *local,
                                 throng_agent_state *states, size_t n,
                                 const throng_mpi_def *def,
                                 throng_mpi_world **out) {
    char msg[MPI_ERROR_BYTES] = "";
    throng_mpi_world *dw = world_alloc(comm, def);
    throng_status st = THRONG_OK;
    /* A failed allocation here cannot be agreed on without a world;
     * it is this process's end either way. */
    if (!dw || !dw->leaf_of_rank || !dw->ext_lo || !dw->ext_hi) {
        throng_world_destroy(local);
        throng_mpi_world_destroy(dw);
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    dw->local = local;
    dw->dims = throng_world_dimensions(local);
    throng_world_def info;
    throng_world_get_def(local, &info);
    dw->periodic = info.boundary == THRONG_BOUNDARY_PERIODIC;
    memcpy(dw->box, info.box_size, sizeof dw->box);
    dw->max_dt = info.max_dt;
    dw->max_substeps = info.max_substeps;
    dw->reach = ((double)info.neighbour_radius + (double)dw->def.extra_reach) *
                    (1.0 + 1e-5) +
                1e-6;
    float *pos = malloc((n ? n : 1) * 3 * sizeof *pos);
    if (!pos)
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    for (size_t i = 0; i < n && st == THRONG_OK; i++)
        memcpy(&pos[3 * i], states[i].position, 3 * sizeof(float));
    st = agree(dw, st, msg);
    if (st == THRONG_OK && partition(dw, pos, n))
        st = THRONG_ERR_OUT_OF_MEMORY;
    free(pos);
    outbox o;
    if (st == THRONG_OK && outbox_init(&o, dw->size))
        st = THRONG_ERR_OUT_OF_MEMORY;
    st = agree(dw, st, "no memory for the partition");
    if (st != THRONG_OK) {
        throng_mpi_world_destroy(dw);
        return st;
    }
    for (size_t i = 0; i < n && st == THRONG_OK; i++)
        if (outbox_put(&o, dw->nodes[leaf_at(dw, states[i].position)].r0,
                       &states[i]))
            st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    st = agree(dw, st, msg);
    throng_agent_state *in = NULL;
    size_t got = 0;
    if (st == THRONG_OK && exchange(dw, &o, &in, &got, NULL))
        st = agree(dw, THRONG_ERR_OUT_OF_MEMORY, "no memory for the exchange");
    outbox_free(&o);
    if (st == THRONG_OK)
        st = agree(dw, adopt(dw, in, got, msg), msg);
    free(in);
    if (st != THRONG_OK) {
        throng_mpi_world_destroy(dw);
        return st;
    }
    st = agree(dw, nav_scan(dw) ? THRONG_ERR_OUT_OF_MEMORY : THRONG_OK,
               "no memory for the navigation fields");
    if (st != THRONG_OK) {
        throng_mpi_world_destroy(dw);
        return st;
    }
    memset(&dw->stats, 0, sizeof dw->stats);
    dw->stats.ranks = (uint32_t)dw->size;
    dw->stats.owned = throng_world_agent_count(dw->local);
    *out = dw;
    return THRONG_OK;
}

/* Whether every rank waits the same way (collective, blocking: called
 * before any collective that depends on the answer). */
static int same_waiting(MPI_Comm comm, unsigned us) {
    int mine[2] = { us != 0, -(us != 0) }, both[2];
    MPI_Allreduce(mine, both, 2, MPI_INT, MPI_MAX, comm);
    return both[0] == -both[1];
}

throng_status throng_mpi_world_create(MPI_Comm comm, const throng_world *world,
                                      const throng_mpi_def *def,
                                      throng_mpi_world **out) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const unsigned us = def ? def->poll_sleep_us : 0u;
    char msg[MPI_ERROR_BYTES] = "", error[MPI_ERROR_BYTES + 32] = "";
    throng_status st = THRONG_OK;
    if (out)
        *out = NULL;
    if (!world || !out)
        st = fail(NULL, msg, THRONG_ERR_NULL,
                  "throng_mpi_world_create: world and out must not be NULL");
    else if (def &&
             (def->threads < 0 || !(def->extra_reach >= 0.0f) ||
              !isfinite(def->extra_reach) || def->poll_sleep_us > 1000000u))
        st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                  "throng_mpi_world_create: threads must be >= 0, "
                  "extra_reach finite and >= 0, poll_sleep_us at most "
                  "1000000");
    /* Every rank takes part, whatever it found so far. */
    const int same = same_waiting(comm, us);
    if (st == THRONG_OK && !same)
        st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                  "throng_mpi_world_create: poll_sleep_us is 0 on some ranks "
                  "and not on others (blocking and non-blocking collectives "
                  "do not match)");
    /* The same definition and step count everywhere. */
    uint64_t mine[2] = { 0, 0 }, lo[2], hi[2];
    if (st == THRONG_OK) {
        mine[0] = throng_world_definition_hash(world);
        mine[1] = throng_world_step_count(world);
    }
    st = agree_on(comm, rank, 0u, st, msg, error, sizeof error);
    if (st == THRONG_OK) {
        MPI_Allreduce(mine, lo, 2, MPI_UINT64_T, MPI_MIN, comm);
        MPI_Allreduce(mine, hi, 2, MPI_UINT64_T, MPI_MAX, comm);
        if (lo[0] != hi[0] || lo[0] == 0)
            st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                      "throng_mpi_world_create: the ranks' world definitions "
                      "differ (definition hashes %016llx .. %016llx): every "
                      "rank must make the same settings, groups and objects",
                      (unsigned long long)lo[0], (unsigned long long)hi[0]);
        else if (lo[1] != hi[1])
            st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                      "throng_mpi_world_create: the ranks' worlds are at "
                      "different steps (%llu .. %llu)",
                      (unsigned long long)lo[1], (unsigned long long)hi[1]);
        /* Every rank found the same: no agreement needed. */
    }
    /* This rank's share of the agents, with their keys checked. */
    throng_agent_state *states = NULL;
    size_t n = 0;
    uint32_t count = st == THRONG_OK ? throng_world_agent_count(world) : 0;
    if (st == THRONG_OK) {
        states = malloc((count ? count : 1) * sizeof *states);
        if (!states)
            st = fail(NULL, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    }
    const int whole = def && def->template_is_whole;
    for (uint32_t i = 0; i < count && st == THRONG_OK; i++) {
        if (whole && (int)(i % (uint32_t)size) != rank)
            continue;
        throng_agent a;
        throng_agent_at(world, i, &a);
        throng_agent_state s;
        throng_agent_export(world, a, &s);
        if (s.host_key == 0)
            st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                      "throng_mpi_world_create: the agent at row %u has no "
                      "host key: every agent of a distributed world needs "
                      "one",
                      i);
        states[n++] = s;
    }
    throng_world *local = NULL;
    if (st == THRONG_OK)
        st = definition_copy(world, def ? def->threads : 0, &local, msg);
    st = agree_on(comm, rank, us, st, msg, error, sizeof error);
    if (st == THRONG_OK)
        st = create_from(comm, local, states, n, def, out);
    else
        throng_world_destroy(local);
    free(states);
    (void)error;
    return st;
}

/* ------------------------------------------------------------------------ */
/* Stepping                                                                 */
/* ------------------------------------------------------------------------ */

const throng_world *throng_mpi_world_local(const throng_mpi_world *dw) {
    return dw ? dw->local : NULL;
}

const char *throng_mpi_world_last_error(const throng_mpi_world *dw) {
    return dw ? dw->error : "";
}

/* Agents outside this rank's box go to their owners: only the rows near a
 * face (border_rows) can have left it. */
static throng_status migrate(throng_mpi_world *dw, char *msg) {
    outbox o;
    throng_status st = THRONG_OK;
    if (outbox_init(&o, dw->size))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    const throng_columns *cols = NULL;
    throng_columns view;
    if (st == THRONG_OK && throng_world_columns(dw->local, &view) == THRONG_OK)
        cols = &view;
    uint32_t n = throng_world_agent_count(dw->local);
    throng_agent *gone = malloc((n ? n : 1) * sizeof *gone);
    uint64_t *gone_keys = malloc((n ? n : 1) * sizeof *gone_keys);
    size_t ngone = 0;
    if (!gone || !gone_keys || scan_reserve(dw, n))
        st = THRONG_ERR_OUT_OF_MEMORY;
    const uint32_t nb =
        st == THRONG_OK && cols ? border_rows(dw, cols, dw->mark, dw->rows) : 0;
    for (uint32_t b = 0; b < nb && st == THRONG_OK; b++) {
        const uint32_t i = dw->rows[b];
        float p[3] = { cols->px[i], cols->py[i],
                       dw->dims == 3 ? cols->pz[i] : 0.0f };
        int to = dw->nodes[leaf_at(dw, p)].r0;
        if (to == dw->rank)
            continue;
        throng_agent a;
        throng_agent_state s;
        throng_agent_at(dw->local, i, &a);
        local_state(dw, a, &s);
        if (outbox_put(&o, to, &s))
            st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        gone_keys[ngone] = s.host_key;
        gone[ngone++] = a;
    }
    st = agree(dw, st, msg);
    throng_agent_state *in = NULL;
    size_t got = 0;
    if (st == THRONG_OK && exchange(dw, &o, &in, &got, NULL))
        st = THRONG_ERR_OUT_OF_MEMORY;
    outbox_free(&o);
    if (st == THRONG_OK) {
        for (size_t i = 0; i < ngone; i++)
            map_set(&dw->targets, gone_keys[i], 0);
        throng_agents_remove(dw->local, (uint32_t)ngone, gone);
        dw->stats.migrated = (uint32_t)ngone;
        st = adopt(dw, in, got, msg);
    }
    free(in);
    free(gone);
    free(gone_keys);
    return st;
}

/* Keys some owned agent targets that this rank does not hold. */
static int wanted_keys(throng_mpi_world *dw, uint64_t **out, int *count) {
    size_t cap = 64, n = 0;
    uint64_t *k = malloc(cap * sizeof *k);
    if (!k)
        return 1;
    for (size_t i = 0; i < dw->targets.cap; i++) {
        uint64_t t = dw->targets.values[i];
        if (!dw->targets.keys[i] || !t)
            continue;
        throng_agent a;
        if (throng_agent_find(dw->local, t, &a) == THRONG_OK)
            continue;
        if (n == cap) {
            uint64_t *g = realloc(k, 2 * cap * sizeof *k);
            if (!g) {
                free(k);
                return 1;
            }
            k = g;
            cap *= 2;
        }
        k[n++] = t;
    }
    *out = k;
    *count = (int)n;
    return 0;
}

/* The per-rank counts of the ghosts' bookkeeping (contact_state). */
static int contact_reserve_ranks(throng_mpi_world *dw) {
    contact_state *cs = &dw->contact;
    if (!cs->sent_count)
        cs->sent_count = calloc((size_t)dw->size, sizeof *cs->sent_count);
    if (!cs->recv_count)
        cs->recv_count = calloc((size_t)dw->size, sizeof *cs->recv_count);
    if (!cs->floats)
        cs->floats = calloc(4u * (size_t)dw->size, sizeof *cs->floats);
    return !cs->sent_count || !cs->recv_count || !cs->floats;
}

/* Keeps the agents of the ghosts' records, by destination in record
 * order (as sent), and room for `got` received records' ghosts. */
static int contact_keep_sent(throng_mpi_world *dw, const outbox *o,
                             size_t got) {
    contact_state *cs = &dw->contact;
    size_t total = 0;
    for (int r = 0; r < dw->size; r++)
        total += o->count[r];
    if (total > cs->sent_cap) {
        throng_agent *a = realloc(cs->sent, total * sizeof *a);
        if (!a)
            return 1;
        cs->sent = a;
        cs->sent_cap = total;
    }
    if (got > cs->recv_cap) {
        long *g = realloc(cs->recv_ghost, got * sizeof *g);
        if (!g)
            return 1;
        cs->recv_ghost = g;
        cs->recv_cap = got;
    }
    size_t at = 0;
    for (int r = 0; r < dw->size; r++) {
        if (o->count[r])
            memcpy(cs->sent + at, o->who[r], o->count[r] * sizeof *cs->sent);
        cs->sent_count[r] = (int)o->count[r];
        at += o->count[r];
    }
    cs->sent_total = total;
    return 0;
}

/* Ghosts in: copies of the agents near this rank's box, and of the agents
 * its agents target. */
static throng_status ghosts_in(throng_mpi_world *dw, char *msg) {
    outbox o;
    throng_status st = THRONG_OK;
    if (outbox_init(&o, dw->size))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    throng_columns view;
    const uint32_t n = throng_world_agent_count(dw->local);
    uint32_t nb = 0;
    if (st == THRONG_OK && dw->size > 1) {
        if (scan_reserve(dw, n) ||
            throng_world_columns(dw->local, &view) != THRONG_OK)
            st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        else
            nb = border_rows(dw, &view, dw->mark, dw->rows);
    }
    for (uint32_t b = 0; b < nb && st == THRONG_OK; b++) {
        const uint32_t i = dw->rows[b];
        float p[3] = { view.px[i], view.py[i],
                       dw->dims == 3 ? view.pz[i] : 0.0f };
        int sent = 0;
        throng_agent_state s;
        throng_agent a;
        for (int k = 0; k < dw->near_count; k++) {
            const int r = dw->near[k];
            if (!near_rank(dw, p, r))
                continue;
            if (!sent) {
                throng_agent_at(dw->local, i, &a);
                throng_agent_export(dw->local, a, &s);
                s.target_key = 0;
                sent = 1;
            }
            if (outbox_put_from(&o, r, &s, &a))
                st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        }
    }
    /* The targets other ranks' agents need: every rank's wanted keys to
     * every rank; each owner sends the states it holds. */
    uint64_t *want = NULL, *all = NULL;
    int nw = 0, *counts = NULL, *displs = NULL;
    if (st == THRONG_OK && dw->size > 1 && wanted_keys(dw, &want, &nw))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    st = agree(dw, st, msg);
    if (st == THRONG_OK && dw->size > 1) {
        counts = calloc((size_t)dw->size, sizeof *counts);
        displs = calloc((size_t)dw->size, sizeof *displs);
        c_allgather(dw->def.poll_sleep_us, &nw, 1, MPI_INT, counts, 1, MPI_INT,
                    dw->comm);
        int total = 0;
        for (int r = 0; r < dw->size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc((size_t)(total ? total : 1) * sizeof *all);
        c_allgatherv(dw->def.poll_sleep_us, want, nw, MPI_UINT64_T, all, counts,
                     displs, MPI_UINT64_T, dw->comm);
        dw->stats.bytes_sent += (uint64_t)nw * 8u * (uint64_t)(dw->size - 1);
        for (int r = 0; r < dw->size && st == THRONG_OK; r++) {
            if (r == dw->rank)
                continue;
            for (int j = 0; j < counts[r]; j++) {
                throng_agent a;
                if (throng_agent_find(dw->local, all[displs[r] + j], &a) !=
                    THRONG_OK)
                    continue;
                throng_agent_state s;
                throng_agent_export(dw->local, a, &s);
                s.target_key = 0;
                if (outbox_put_from(&o, r, &s, &a))
                    st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
            }
        }
    }
    free(want);
    free(all);
    free(counts);
    free(displs);
    contact_state *cs = &dw->contact;
    if (st == THRONG_OK && dw->size > 1 && contact_reserve_ranks(dw))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    st = agree(dw, st, msg);
    throng_agent_state *in = NULL;
    size_t got = 0;
    if (st == THRONG_OK && dw->size > 1 &&
        exchange(dw, &o, &in, &got, cs->recv_count))
        st = THRONG_ERR_OUT_OF_MEMORY;
    /* Who went where, for the refreshes of the contact passes. */
    cs->sent_total = 0;
    cs->recv_total = 0;
    if (st == THRONG_OK && dw->size > 1 && contact_keep_sent(dw, &o, got))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    outbox_free(&o);
    dw->ghost_count = 0;
    if (st == THRONG_OK && got > dw->ghost_cap) {
        throng_agent *g = realloc(dw->ghosts, got * sizeof *g);
        if (!g)
            st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
        else {
            dw->ghosts = g;
            dw->ghost_cap = got;
        }
    }
    /* The same agent may come twice (near the box and a target): the
     * first of each key is kept, in the order received. */
    key_map seen = { NULL, NULL, 0, 0 };
    size_t keep = 0;
    if (st == THRONG_OK && got > 0 && map_reserve(&seen, got))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    for (size_t i = 0; i < got && st == THRONG_OK; i++) {
        cs->recv_ghost[i] = -1;
        if (map_get(&seen, in[i].host_key))
            continue;
        map_set(&seen, in[i].host_key, 1);
        cs->recv_ghost[i] = (long)keep;
        in[keep++] = in[i];
    }
    free(seen.keys);
    free(seen.values);
    if (st == THRONG_OK && keep > 0) {
        st = throng_agents_import(dw->local, (uint32_t)keep, in, dw->ghosts);
        if (st != THRONG_OK)
            fail(dw, msg, st, "%s", throng_world_last_error(dw->local));
        else
            dw->ghost_count = keep;
    }
    if (st == THRONG_OK)
        cs->recv_total = got;
    free(in);
    dw->stats.ghosts = (uint32_t)dw->ghost_count;
    return st;
}

/* Each owned agent's target, by key, to its row now. A target that no
 * rank holds any more (every rank sent the targets it held) was removed:
 * as a link to a removed agent in one world, the agent has no target, and
 * its key is forgotten. */
static throng_status link_targets(throng_mpi_world *dw, char *msg) {
    uint64_t *gone = NULL;
    size_t ngone = 0, cap = 0;
    for (size_t i = 0; i < dw->targets.cap; i++) {
        const uint64_t key = dw->targets.keys[i], t = dw->targets.values[i];
        if (!key || !t)
            continue;
        throng_agent a, b;
        if (throng_agent_find(dw->local, key, &a) != THRONG_OK)
            continue;
        if (throng_agent_find(dw->local, t, &b) != THRONG_OK) {
            if (ngone == cap) {
                cap = cap ? 2 * cap : 64;
                uint64_t *g = realloc(gone, cap * sizeof *g);
                if (!g) {
                    free(gone);
                    return fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
                }
                gone = g;
            }
            gone[ngone++] = key;
            b.slot = b.generation = 0;
            b.world = 0;
        }
        throng_agent_set_target_agent(dw->local, a, b);
    }
    for (size_t i = 0; i < ngone; i++)
        map_set(&dw->targets, gone[i], 0);
    free(gone);
    return THRONG_OK;
}

/* The ghosts out in one call: those the step left (a ghost removed on
 * arriving at a navigation goal is gone already, and the bulk removal
 * refuses a stale handle whole). */
static void ghosts_out(throng_mpi_world *dw) {
    size_t live = 0;
    for (size_t i = 0; i < dw->ghost_count; i++)
        if (throng_agent_valid(dw->local, dw->ghosts[i]))
            dw->ghosts[live++] = dw->ghosts[i];
    throng_agents_remove(dw->local, (uint32_t)live, dw->ghosts);
    dw->ghost_count = 0;
}

throng_status throng_mpi_world_rebalance(throng_mpi_world *dw) {
    if (!dw)
        return THRONG_ERR_NULL;
    const uint32_t n = throng_world_agent_count(dw->local);
    float *pos = malloc((n ? n : 1) * 3 * sizeof *pos);
    throng_columns view;
    if (pos && throng_world_columns(dw->local, &view) == THRONG_OK)
        for (uint32_t i = 0; i < n; i++) {
            pos[3 * i] = view.px[i];
            pos[3 * i + 1] = view.py[i];
            pos[3 * i + 2] = dw->dims == 3 ? view.pz[i] : 0.0f;
        }
    throng_status st = agree(dw, pos ? THRONG_OK : THRONG_ERR_OUT_OF_MEMORY,
                             "no memory to rebalance");
    if (st == THRONG_OK && partition(dw, pos, n))
        st = THRONG_ERR_OUT_OF_MEMORY;
    free(pos);
    st = agree(dw, st, "no memory to rebalance");
    if (st != THRONG_OK)
        return st;
    dw->stats.rebalances++;
    /* The agents to the ranks that own their boxes now. */
    char msg[MPI_ERROR_BYTES] = "";
    return agree(dw, migrate(dw, msg), msg);
}

/* ------------------------------------------------------------------------ */
/* Contact resolution across the ranks                                      */
/* ------------------------------------------------------------------------ */

/* Room for a tick's passes: the positions of the records sent and
 * received, the ghosts to set, and per row of the local world. */
static int contact_reserve_rows(throng_mpi_world *dw, uint32_t n) {
    contact_state *cs = &dw->contact;
    const size_t out = cs->sent_total ? cs->sent_total : 1;
    const size_t in = cs->recv_total ? cs->recv_total : 1;
    const size_t rows = n ? n : 1;
    if (3 * out > cs->out_cap) {
        float *f = realloc(cs->out, 3 * out * sizeof *f);
        if (!f)
            return 1;
        cs->out = f;
        cs->out_cap = 3 * out;
    }
    if (3 * in > cs->in_cap) {
        float *f = realloc(cs->in, 3 * in * sizeof *f);
        if (!f)
            return 1;
        cs->in = f;
        cs->in_cap = 3 * in;
    }
    if (in > cs->set_cap) {
        throng_agent *a = realloc(cs->set, in * sizeof *a);
        if (a)
            cs->set = a;
        float *f = realloc(cs->set_pos, 3 * in * sizeof *f);
        if (f)
            cs->set_pos = f;
        if (!a || !f)
            return 1;
        cs->set_cap = in;
    }
    if (rows > cs->row_cap) {
        unsigned char *g = realloc(cs->ghost_row, rows);
        if (g)
            cs->ghost_row = g;
        float *f = realloc(cs->prev, 3 * rows * sizeof *f);
        if (f)
            cs->prev = f;
        double *t = realloc(cs->travel, rows * sizeof *t);
        if (t)
            cs->travel = t;
        if (!g || !f || !t)
            return 1;
        cs->row_cap = rows;
    }
    return 0;
}

/* The ghosts' positions from their owners, into the open tick: every
 * rank sends the positions of the agents it sent as ghosts this tick, in
 * the order it sent them (one alltoallv of 12 bytes a record; the counts
 * are the ghost exchange's), and each receiver writes them into the ghost
 * each record became. With it, the largest of mine[3] over the ranks
 * goes to all[3] (contact_passes_ranks). Nonzero when the local world
 * refused the positions. */
static int contact_refresh(throng_mpi_world *dw, const double mine[3],
                           double all[3]) {
    contact_state *cs = &dw->contact;
    throng_world *w = dw->local;
    throng_columns view;
    throng_world_columns(w, &view);
    for (size_t i = 0; i < cs->sent_total; i++) {
        uint32_t row = 0;
        throng_agent_index(w, cs->sent[i], &row);
        cs->out[3 * i] = view.px[row];
        cs->out[3 * i + 1] = view.py[row];
        cs->out[3 * i + 2] = dw->dims == 3 ? view.pz[row] : 0.0f;
    }
    const int P = dw->size;
    int *sc = cs->floats, *sd = sc + P, *rc = sd + P, *rd = rc + P;
    int at = 0, got = 0;
    for (int r = 0; r < P; r++) {
        sc[r] = 3 * cs->sent_count[r];
        sd[r] = at;
        at += sc[r];
        rc[r] = 3 * cs->recv_count[r];
        rd[r] = got;
        got += rc[r];
        if (r != dw->rank && sc[r]) {
            dw->stats.bytes_sent += (uint64_t)sc[r] * sizeof(float);
            dw->stats.messages_sent++;
        }
    }
    c_alltoallv_max(dw->def.poll_sleep_us, cs->out, sc, sd, cs->in, rc, rd,
                    mine, all, 3, dw->comm);
    uint32_t m = 0;
    for (size_t i = 0; i < cs->recv_total; i++) {
        const long g = cs->recv_ghost[i];
        if (g < 0)
            continue; /* the same agent's second record */
        cs->set[m] = dw->ghosts[g];
        memcpy(cs->set_pos + 3 * (size_t)m, cs->in + 3 * i, 3 * sizeof(float));
        m++;
    }
    return throng_world_tick_set_positions(w, m, cs->set, cs->set_pos) !=
           THRONG_OK;
}

/* The contact passes of an open tick on more than one rank. Before each
 * pass every ghost takes its owner's position (after the move, then
 * after each pass), so an owned agent's pass reads what it would read in
 * one world: its neighbours' positions, through the tick's grid (their
 * positions before the move: the ghosts' are the owners' bits), with
 * their radii and groups (unchanged in a tick). That holds while every
 * agent within contact of an owned agent is a ghost here: the ghosts are
 * every agent that was within `reach` of the box (per axis) before the
 * move, so it holds while twice the largest radius plus twice the
 * farthest any agent has travelled in the tick stays within reach. Each
 * rank bounds its owned agents' travel (the move's |v| dt, then each
 * pass's displacement) and one allreduce a pass takes the largest travel,
 * the largest radius and whether any agent moved in the pass before: a
 * pass that moved none, where the rest would change nothing, ends the
 * passes everywhere, as it ends them in one world. A tick past the bound
 * still steps, and counts in the stats (contact_inexact_ticks). */
static throng_status contact_passes_ranks(throng_mpi_world *dw, float dt,
                                          uint32_t passes, char *msg,
                                          double *comm) {
    contact_state *cs = &dw->contact;
    throng_world *w = dw->local;
    const uint32_t n = throng_world_agent_count(w);
    throng_status st = THRONG_OK;
    memset(cs->ghost_row, 0, n ? n : 1);
    for (size_t g = 0; g < dw->ghost_count; g++) {
        uint32_t row = 0;
        if (throng_agent_index(w, dw->ghosts[g], &row) == THRONG_OK)
            cs->ghost_row[row] = 1;
    }
    throng_columns view;
    throng_world_columns(w, &view);
    const int three = dw->dims == 3;
    double rmax = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const float p[3] = { view.px[i], view.py[i],
                             three ? view.pz[i] : 0.0f };
        memcpy(cs->prev + 3 * (size_t)i, p, sizeof p);
        cs->travel[i] = 0.0;
        if (cs->ghost_row[i])
            continue;
        throng_agent a;
        float r = 0.0f;
        throng_agent_at(w, i, &a);
        throng_agent_get_radius(w, a, &r);
        rmax = (double)r > rmax ? (double)r : rmax;
        /* The move: p + v dt, rounded, from where the agent stood. */
        const double vx = (double)view.vx[i], vy = (double)view.vy[i],
                     vz = three ? (double)view.vz[i] : 0.0;
        const double mag =
            fabs((double)p[0]) + fabs((double)p[1]) + fabs((double)p[2]);
        cs->travel[i] =
            sqrt(vx * vx + vy * vy + vz * vz) * (double)dt * (1.0 + 1e-6) +
            mag * 1.2e-7;
    }
    int local_failed = 0, inexact = 0;
    bool settles = false;
    for (uint32_t k = 0; k < passes; k++) {
        /* The owned rows' travel so far, and whether the pass before
         * moved one (the refresh writes only the ghosts' rows). */
        throng_world_columns(w, &view);
        double mine[3] = { 0.0, rmax, 0.0 }, all[3];
        for (uint32_t i = 0; i < n; i++) {
            if (cs->ghost_row[i])
                continue;
            float *q = cs->prev + 3 * (size_t)i;
            const float p[3] = { view.px[i], view.py[i],
                                 three ? view.pz[i] : 0.0f };
            double d2 = 0.0;
            for (int a = 0; a < dw->dims; a++) {
                double d = fabs((double)p[a] - (double)q[a]);
                if (dw->periodic && d > 0.5 * (double)dw->box[a])
                    d = (double)dw->box[a] - d;
                d2 += d * d;
            }
            if (p[0] != q[0] || p[1] != q[1] || p[2] != q[2]) {
                mine[2] = 1.0;
                cs->travel[i] += sqrt(d2) * (1.0 + 1e-6);
                memcpy(q, p, sizeof p);
            }
            mine[0] = cs->travel[i] > mine[0] ? cs->travel[i] : mine[0];
        }
        double t1 = now();
        local_failed |= contact_refresh(dw, mine, all);
        *comm += now() - t1;
        /* The pass before moved no agent on any rank: the rest would find
         * what it found. */
        if (k > 0 && all[2] == 0.0 && settles)
            break;
        if (2.0 * all[1] + 2.0 * all[0] > dw->reach)
            inexact = 1;
        uint32_t moved = 0;
        if (!local_failed &&
            throng_world_tick_contact(w, &moved, &settles) != THRONG_OK)
            local_failed = 1;
    }
    if (inexact)
        dw->stats.contact_inexact_ticks++;
    if (local_failed)
        st = fail(dw, msg, THRONG_ERR_INTERNAL, "contact pass: %s",
                  throng_world_last_error(w));
    return st;
}

/* The local tick, in stages: the move, the contact passes (with the
 * ghosts' positions from their owners between them, on more than one
 * rank), the end. */
static throng_status local_tick(throng_mpi_world *dw, float dt, char *msg,
                                double *comm) {
    throng_world *w = dw->local;
    uint32_t passes = 0;
    throng_status st = throng_world_tick_begin(w, dt, &passes);
    if (st != THRONG_OK)
        fail(dw, msg, st, "%s", throng_world_last_error(w));
    else if (passes > 0 && dw->size > 1 &&
             contact_reserve_rows(dw, throng_world_agent_count(w)))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
    /* Every rank's tick began (the passes' exchanges need them all). */
    if (dw->size > 1) {
        double t0 = now();
        st = agree(dw, st, msg);
        *comm += now() - t0;
    }
    if (st != THRONG_OK) {
        (void)throng_world_tick_finish(w); /* refused when none is open */
        return st;
    }
    if (passes > 0 && dw->size > 1) {
        st = contact_passes_ranks(dw, dt, passes, msg, comm);
    } else {
        for (uint32_t k = 0; k < passes && st == THRONG_OK; k++) {
            uint32_t moved = 0;
            bool settles = false;
            st = throng_world_tick_contact(w, &moved, &settles);
            if (moved == 0 && settles)
                break;
        }
        if (st != THRONG_OK)
            fail(dw, msg, st, "%s", throng_world_last_error(w));
    }
    const throng_status end = throng_world_tick_finish(w);
    if (st == THRONG_OK && end != THRONG_OK)
        st = fail(dw, msg, end, "%s", throng_world_last_error(w));
    return st;
}

/* One tick: ghosts in, targets linked, the local step, ghosts out, and
 * the agents that left the box to their new owners, so between ticks
 * every rank holds exactly the agents in its box. */
static throng_status tick(throng_mpi_world *dw, float dt, uint32_t k, char *msg,
                          double *comm) {
    double t0 = now();
    throng_status st = nav_supply_counts(dw, msg);
    if (st == THRONG_OK)
        st = ghosts_in(dw, msg);
    st = agree(dw, st, msg);
    *comm += now() - t0;
    if (st != THRONG_OK) {
        ghosts_out(dw);
        return st;
    }
    st = link_targets(dw, msg);
    if (st == THRONG_OK)
        st = local_tick(dw, dt, msg, comm);
    if (st == THRONG_OK)
        st = nav_collect(dw, k, msg);
    ghosts_out(dw);
    double t1 = now();
    st = agree(dw, st, msg);
    if (st == THRONG_OK)
        st = agree(dw, migrate(dw, msg), msg);
    *comm += now() - t1;
    return st;
}

throng_status throng_mpi_world_step(throng_mpi_world *dw, float dt) {
    if (!dw)
        return THRONG_ERR_NULL;
    char msg[MPI_ERROR_BYTES] = "";
    double t0 = now(), comm = 0.0;
    throng_status st = THRONG_OK;
    if (!(dt > 0.0f) || !isfinite(dt))
        st = fail(dw, msg, THRONG_ERR_OUT_OF_RANGE,
                  "throng_mpi_world_step: dt must be finite and > 0, got %g",
                  (double)dt);
    st = agree(dw, st, msg);
    if (st != THRONG_OK)
        return st;
    dw->stats.bytes_sent = 0;
    dw->stats.messages_sent = 0;
    dw->stats.migrated = 0;
    if (dw->def.rebalance_every && dw->steps > 0 &&
        dw->steps % dw->def.rebalance_every == 0) {
        double r0 = now();
        st = throng_mpi_world_rebalance(dw);
        comm += now() - r0;
        if (st != THRONG_OK)
            return st;
    }
    /* The ticks throng_world_step would run, each exchanged. */
    const float max_dt = dw->max_dt;
    const uint32_t max_sub = dw->max_substeps;
    double total = (double)dt;
    const double longest = (double)max_dt * (double)max_sub;
    if (total > longest)
        total = longest;
    uint32_t ticks = (uint32_t)ceil(total / (double)max_dt - 1e-9);
    ticks = ticks < 1u ? 1u : ticks;
    ticks = ticks > max_sub ? max_sub : ticks;
    const float t = ticks == 1u && total == (double)dt
                        ? dt
                        : (float)(total / (double)ticks);
    dw->nav.mine_count = 0;
    for (uint32_t k = 0; k < ticks && st == THRONG_OK; k++)
        st = tick(dw, t, k, msg, &comm);
    if (st == THRONG_OK) {
        double g0 = now();
        st = agree(dw, nav_gather(dw, msg), msg);
        comm += now() - g0;
    }
    if (st != THRONG_OK)
        return st;
    dw->steps++;
    throng_mpi_stats *s = &dw->stats;
    s->owned = throng_world_agent_count(dw->local);
    s->comm_seconds = comm;
    s->step_seconds = now() - t0;
    s->total_comm_seconds += comm;
    s->total_step_seconds += s->step_seconds;
    s->total_bytes_sent += s->bytes_sent;
    s->steps = dw->steps;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Adding, removing, looking up                                             */
/* ------------------------------------------------------------------------ */

/* A position wrapped into the periodic box as the world will wrap it. */
static void wrap(const throng_mpi_world *dw, float p[3]) {
    if (!dw->periodic)
        return;
    for (int a = 0; a < dw->dims; a++) {
        const float L = dw->box[a];
        float x = p[a];
        if (x < 0.0f)
            x += L;
        else if (x >= L)
            x -= L;
        if (!(x >= 0.0f && x < L)) {
            float r = x - L * floorf(x / L);
            x = r >= 0.0f && r < L ? r : 0.0f;
        }
        p[a] = x;
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every rank's keys, gathered on every rank: *all (malloc'd), *total. */
static int gather_keys(throng_mpi_world *dw, const uint64_t *mine, int n,
                       uint64_t **all, int *total, int *counts, int *displs) {
    c_allgather(dw->def.poll_sleep_us, &n, 1, MPI_INT, counts, 1, MPI_INT,
                dw->comm);
    int t = 0;
    for (int r = 0; r < dw->size; r++) {
        displs[r] = t;
        t += counts[r];
    }
    *all = malloc((size_t)(t ? t : 1) * sizeof **all);
    int bad = !*all, failed = 0;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    if (failed) {
        free(*all);
        *all = NULL;
        return 1;
    }
    c_allgatherv(dw->def.poll_sleep_us, mine, n, MPI_UINT64_T, *all, counts,
                 displs, MPI_UINT64_T, dw->comm);
    *total = t;
    return 0;
}

throng_status throng_mpi_agents_add(throng_mpi_world *dw, uint32_t count,
                                    const throng_agent_def *defs,
                                    const uint64_t *target_keys,
                                    throng_mpi_agent *out) {
    if (!dw)
        return THRONG_ERR_NULL;
    static const char fn[] = "throng_mpi_agents_add";
    char msg[MPI_ERROR_BYTES] = "";
    throng_status st = THRONG_OK;
    if (count > 0 && !defs)
        st = fail(dw, msg, THRONG_ERR_NULL, "%s: defs is NULL", fn);
    if (count > (uint32_t)INT32_MAX)
        st = fail(dw, msg, THRONG_ERR_CAPACITY, "%s: too many agents", fn);
    uint64_t *keys = st == THRONG_OK ? malloc((count ? count : 1) * 8u) : NULL;
    if (st == THRONG_OK && !keys)
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    for (uint32_t i = 0; i < count && st == THRONG_OK; i++) {
        const throng_agent_def *d = &defs[i];
        float p[3] = { d->position[0], d->position[1],
                       dw->dims == 3 ? d->position[2] : 0.0f };
        int finite = 1;
        for (int a = 0; a < 3; a++)
            finite &= isfinite(p[a]) != 0;
        if (!finite) {
            st = fail(dw, msg, THRONG_ERR_NOT_FINITE,
                      "%s: agent %u (host key %llu): position %g %g %g is "
                      "not finite",
                      fn, i, (unsigned long long)d->host_key, (double)p[0],
                      (double)p[1], (double)p[2]);
            break;
        }
        if (d->host_key == 0) {
            st = fail(dw, msg, THRONG_ERR_OUT_OF_RANGE,
                      "%s: agent %u has no host key: every agent of a "
                      "distributed world needs one",
                      fn, i);
            break;
        }
        wrap(dw, p);
        const int owner = throng_mpi_world_rank_of(dw, p);
        if (owner != dw->rank) {
            st = fail(dw, msg, THRONG_ERR_OUT_OF_RANGE,
                      "%s: agent %u (host key %llu) at %g %g %g lies in rank "
                      "%d's region, not this rank's (%d): add it there "
                      "(throng_mpi_world_rank_of)",
                      fn, i, (unsigned long long)d->host_key, (double)p[0],
                      (double)p[1], (double)p[2], owner, dw->rank);
            break;
        }
        keys[i] = d->host_key;
    }
    st = agree(dw, st, msg);
    /* Keys unique across the ranks and the new agents. */
    uint64_t *all = NULL;
    int total = 0;
    int *counts = calloc((size_t)dw->size, sizeof *counts),
        *displs = calloc((size_t)dw->size, sizeof *displs);
    if (st == THRONG_OK &&
        (!counts || !displs ||
         gather_keys(dw, keys, (int)count, &all, &total, counts, displs)))
        st = THRONG_ERR_OUT_OF_MEMORY;
    if (st == THRONG_OK) {
        for (int j = 0; j < total && st == THRONG_OK; j++) {
            throng_agent a;
            if (throng_agent_find(dw->local, all[j], &a) == THRONG_OK)
                st = fail(dw, msg, THRONG_ERR_DUPLICATE_KEY,
                          "%s: host key %llu already names an agent", fn,
                          (unsigned long long)all[j]);
        }
        qsort(all, (size_t)total, sizeof *all, cmp_u64);
        for (int j = 1; j < total && st == THRONG_OK; j++)
            if (all[j] == all[j - 1])
                st = fail(dw, msg, THRONG_ERR_DUPLICATE_KEY,
                          "%s: host key %llu is given to two new agents", fn,
                          (unsigned long long)all[j]);
        st = agree(dw, st, msg);
    }
    free(all);
    free(counts);
    free(displs);
    free(keys);
    if (st != THRONG_OK)
        return st;
    /* Checked everywhere: the adds. Only memory can fail now. */
    for (uint32_t i = 0; i < count && st == THRONG_OK; i++) {
        throng_agent a;
        st = throng_agent_add(dw->local, &defs[i], &a);
        if (st != THRONG_OK)
            fail(dw, msg, st, "%s", throng_world_last_error(dw->local));
        else if (target_keys && target_keys[i] &&
                 map_set(&dw->targets, defs[i].host_key, target_keys[i]))
            st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
        if (out)
            out[i].key = defs[i].host_key;
    }
    return agree(dw, st, msg);
}

/* Targets naming removed agents (keys sorted) are forgotten at once,
 * as a removed agent's links go stale in one world. */
static void forget_targets(throng_mpi_world *dw, uint64_t *keys, size_t n) {
    qsort(keys, n, sizeof *keys, cmp_u64);
    for (size_t i = 0; i < dw->targets.cap;) {
        const uint64_t t = dw->targets.values[i];
        if (dw->targets.keys[i] && t &&
            bsearch(&t, keys, n, sizeof *keys, cmp_u64)) {
            /* The deletion shifts later entries into i: look again. */
            map_set(&dw->targets, dw->targets.keys[i], 0);
            continue;
        }
        i++;
    }
}

throng_status throng_mpi_agents_remove(throng_mpi_world *dw, uint32_t count,
                                       const throng_mpi_agent *agents) {
    if (!dw)
        return THRONG_ERR_NULL;
    static const char fn[] = "throng_mpi_agents_remove";
    char msg[MPI_ERROR_BYTES] = "";
    throng_status st = THRONG_OK;
    if (count > 0 && !agents)
        st = fail(dw, msg, THRONG_ERR_NULL, "%s: agents is NULL", fn);
    uint64_t *keys = malloc((count ? count : 1) * 8u);
    if (!keys)
        st = fail(dw, msg, THRONG_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    for (uint32_t i = 0; i < count && st == THRONG_OK; i++)
        keys[i] = agents[i].key;
    st = agree(dw, st, msg);
    uint64_t *all = NULL;
    int total = 0;
    int *counts = calloc((size_t)dw->size, sizeof *counts),
        *displs = calloc((size_t)dw->size, sizeof *displs);
    if (st == THRONG_OK &&
        (!counts || !displs ||
         gather_keys(dw, keys ? keys : (uint64_t *)msg, (int)count, &all,
                     &total, counts, displs)))
        st = THRONG_ERR_OUT_OF_MEMORY;
    int *held = NULL, *sum = NULL;
    if (st == THRONG_OK) {
        held = calloc((size_t)(total ? total : 1), sizeof *held);
        sum = calloc((size_t)(total ? total : 1), sizeof *sum);
        for (int j = 0; j < total && held; j++) {
            throng_agent a;
            held[j] = throng_agent_find(dw->local, all[j], &a) == THRONG_OK;
        }
        c_allreduce(dw->def.poll_sleep_us, held, sum, total, MPI_INT, MPI_SUM,
                    dw->comm);
        for (int j = 0; j < total && st == THRONG_OK; j++)
            if (sum[j] != 1)
                st = fail(dw, msg, THRONG_ERR_STALE_HANDLE,
                          "%s: no rank holds an agent with host key %llu", fn,
                          (unsigned long long)all[j]);
        /* Every rank saw the same sums: no agreement needed. */
        for (int j = 0; j < total && st == THRONG_OK; j++) {
            throng_agent a;
            if (!held[j] ||
                throng_agent_find(dw->local, all[j], &a) != THRONG_OK)
                continue; /* named twice: already removed */
            throng_agent_remove(dw->local, a);
            map_set(&dw->targets, all[j], 0);
        }
        if (st != THRONG_OK)
            snprintf(dw->error, sizeof dw->error, "rank %d: %s", dw->rank, msg);
        else
            forget_targets(dw, all, (size_t)total);
    }
    free(held);
    free(sum);
    free(all);
    free(counts);
    free(displs);
    free(keys);
    return st;
}

throng_status throng_mpi_agent_lookup(throng_mpi_world *dw,
                                      throng_mpi_agent agent, int *out_rank,
                                      throng_agent_state *out_state) {
    if (!dw)
        return THRONG_ERR_NULL;
    const int P = dw->size;
    uint64_t *keys = calloc((size_t)P, sizeof *keys);
    throng_agent_state *answers = calloc((size_t)P, sizeof *answers);
    throng_agent_state *mine = calloc((size_t)P, sizeof *mine);
    int *owner = calloc((size_t)P, sizeof *owner),
        *found = calloc((size_t)P, sizeof *found);
    int bad = !keys || !answers || !mine || !owner || !found, failed = 0;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    throng_status st = THRONG_OK;
    if (failed) {
        st = THRONG_ERR_OUT_OF_MEMORY;
        goto done;
    }
    c_allgather(dw->def.poll_sleep_us, &agent.key, 1, MPI_UINT64_T, keys, 1,
                MPI_UINT64_T, dw->comm);
    for (int r = 0; r < P; r++) {
        throng_agent a;
        owner[r] = -1;
        if (keys[r] && throng_agent_find(dw->local, keys[r], &a) == THRONG_OK) {
            owner[r] = dw->rank;
            local_state(dw, a, &mine[r]);
        }
    }
    c_allreduce(dw->def.poll_sleep_us, owner, found, P, MPI_INT, MPI_MAX,
                dw->comm);
    /* Each owner sends its answer to the asker. */
    c_alltoall(dw->def.poll_sleep_us, mine, (int)sizeof *mine, MPI_BYTE,
               answers, (int)sizeof *mine, MPI_BYTE, dw->comm);
    if (found[dw->rank] < 0) {
        st = THRONG_ERR_NOT_FOUND;
        snprintf(dw->error, sizeof dw->error,
                 "rank %d: throng_mpi_agent_lookup: no rank holds an agent "
                 "with host key %llu",
                 dw->rank, (unsigned long long)agent.key);
        goto done;
    }
    if (out_rank)
        *out_rank = found[dw->rank];
    if (out_state)
        *out_state = answers[found[dw->rank]];
done:
    free(keys);
    free(answers);
    free(mine);
    free(owner);
    free(found);
    return st;
}

uint64_t throng_mpi_world_agent_count(throng_mpi_world *dw) {
    if (!dw)
        return 0;
    uint64_t n = throng_world_agent_count(dw->local), total = 0;
    c_allreduce(dw->def.poll_sleep_us, &n, &total, 1, MPI_UINT64_T, MPI_SUM,
                dw->comm);
    return total;
}

throng_status throng_mpi_world_stats(const throng_mpi_world *dw,
                                     throng_mpi_stats *out) {
    if (!dw || !out)
        return THRONG_ERR_NULL;
    *out = dw->stats;
    out->ranks = (uint32_t)dw->size;
    out->owned = throng_world_agent_count(dw->local);
    return THRONG_OK;
}

throng_status throng_mpi_world_region(const throng_mpi_world *dw, double lo[3],
                                      double hi[3]) {
    if (!dw || !lo || !hi)
        return THRONG_ERR_NULL;
    for (int a = 0; a < 3; a++) {
        lo[a] = dw->ext_lo[dw->rank][a];
        hi[a] = dw->ext_hi[dw->rank][a];
    }
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Navigation fields                                                        */
/* ------------------------------------------------------------------------ */

throng_status throng_mpi_world_nav_arrivals(const throng_mpi_world *dw,
                                            throng_nav_arrival *out,
                                            uint32_t capacity,
                                            uint32_t *out_count,
                                            bool *out_truncated) {
    if (!dw || !out_count || (!out && capacity > 0u))
        return THRONG_ERR_NULL;
    const size_t n = dw->nav.all_count;
    const size_t copy = n < capacity ? n : capacity;
    if (copy)
        memcpy(out, dw->nav.all, copy * sizeof *out);
    *out_count = (uint32_t)n;
    if (out_truncated)
        *out_truncated = n > capacity;
    return THRONG_OK;
}

/* The local world's handle of the field the caller names by id and
 * generation. */
static throng_object local_field(const throng_mpi_world *dw,
                                 throng_object field) {
    field.world = throng_world_id(dw->local);
    return field;
}

throng_status throng_mpi_nav_field_set_costs(throng_mpi_world *dw,
                                             throng_object field,
                                             const float *costs) {
    if (!dw)
        return THRONG_ERR_NULL;
    static const char fn[] = "throng_mpi_nav_field_set_costs";
    char msg[MPI_ERROR_BYTES] = "";
    const throng_object f = local_field(dw, field);
    throng_nav_field_info info;
    throng_status st = throng_nav_field_get(dw->local, f, &info);
    if (st != THRONG_OK)
        fail(dw, msg, st, "%s: %s", fn, throng_world_last_error(dw->local));
    st = agree(dw, st, msg);
    if (st != THRONG_OK)
        return st;
    /* The same costs on every rank: their bits hashed and compared. */
    uint64_t h = costs ? 0x636F737473ull : 1u, lo = 0, hi = 0;
    for (uint64_t c = 0; costs && c < info.cells; c++)
        h = mix(h, float_bits(costs[c]));
    c_allreduce(dw->def.poll_sleep_us, &h, &lo, 1, MPI_UINT64_T, MPI_MIN,
                dw->comm);
    c_allreduce(dw->def.poll_sleep_us, &h, &hi, 1, MPI_UINT64_T, MPI_MAX,
                dw->comm);
    if (lo != hi) {
        /* Every rank found the same: no agreement needed. */
        snprintf(dw->error, sizeof dw->error,
                 "rank %d: %s: the ranks' costs differ: every rank must "
                 "pass the same costs",
                 dw->rank, fn);
        return THRONG_ERR_OUT_OF_RANGE;
    }
    /* The same costs refused or taken alike everywhere. */
    st = throng_nav_field_set_costs(dw->local, f, costs);
    if (st != THRONG_OK)
        fail(dw, msg, st, "%s", throng_world_last_error(dw->local));
    return agree(dw, st, msg);
}

throng_status throng_mpi_nav_field_update(throng_mpi_world *dw,
                                          throng_object field) {
    if (!dw)
        return THRONG_ERR_NULL;
    static const char fn[] = "throng_mpi_nav_field_update";
    char msg[MPI_ERROR_BYTES] = "";
    throng_status st =
        throng_nav_field_update(dw->local, local_field(dw, field));
    if (st != THRONG_OK)
        fail(dw, msg, st, "%s: %s", fn, throng_world_last_error(dw->local));
    return agree(dw, st, msg);
}

/* ------------------------------------------------------------------------ */
/* The hash                                                                 */
/* ------------------------------------------------------------------------ */

/* One agent's state as a word, every field but the world's flag. */
static uint64_t state_hash(const throng_agent_state *s) {
    const float f[] = {
        s->position[0],
        s->position[1],
        s->position[2],
        s->velocity[0],
        s->velocity[1],
        s->velocity[2],
        s->forward[0],
        s->forward[1],
        s->forward[2],
        s->up[0],
        s->up[1],
        s->up[2],
        s->mass,
        s->max_force,
        s->max_speed,
        s->radius,
        s->wander_rate,
        s->wander[0],
        s->wander[1],
        s->wander[2],
        s->target_point[0],
        s->target_point[1],
        s->target_point[2],
    };
    uint64_t h = mix(0x7468726F6E67ull, s->host_key);
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        h = mix(h, float_bits(f[k]));
    h = mix(h, ((uint64_t)s->group_id << 32) | s->group_generation);
    h = mix(h, s->progress);
    h = mix(h, ((uint64_t)s->nav_field_id << 32) | s->nav_field_generation);
    h = mix(h, ((uint64_t)s->nav_arrived << 32) | s->nav_goal);
    h = mix(h, ((uint64_t)s->nav_arrived_id << 32) | s->nav_arrived_generation);
    return mix(h, s->target_key);
}

typedef struct keyed_hash {
    uint64_t key, hash;
} keyed_hash;

static int cmp_keyed(const void *a, const void *b) {
    const keyed_hash *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static uint64_t chain(uint64_t step, keyed_hash *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_keyed);
    uint64_t h = mix(0x6D7069ull, step);
    h = mix(h, n);
    for (size_t i = 0; i < n; i++)
        h = mix(mix(h, v[i].key), v[i].hash);
    return h;
}

uint64_t throng_mpi_hash_world(const throng_world *w) {
    if (!w)
        return 0;
    const uint32_t n = throng_world_agent_count(w);
    keyed_hash *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        throng_agent_state s;
        throng_agent_at(w, i, &a);
        throng_agent_export(w, a, &s);
        v[i].key = s.host_key;
        v[i].hash = state_hash(&s);
    }
    uint64_t h = chain(throng_world_step_count(w), v, n);
    free(v);
    return h;
}

uint64_t throng_mpi_world_hash(throng_mpi_world *dw) {
    if (!dw)
        return 0;
    const uint32_t n = throng_world_agent_count(dw->local);
    keyed_hash *v = malloc((n ? n : 1) * sizeof *v);
    int bad = !v, failed = 0;
    c_allreduce(dw->def.poll_sleep_us, &bad, &failed, 1, MPI_INT, MPI_MAX,
                dw->comm);
    if (failed) {
        free(v);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        throng_agent_state s;
        throng_agent_at(dw->local, i, &a);
        local_state(dw, a, &s);
        v[i].key = s.host_key;
        v[i].hash = state_hash(&s);
    }
    int *counts = NULL, *displs = NULL, mine = (int)(n * 2u), total = 0;
    uint64_t *all = NULL;
    if (dw->rank == 0) {
        counts = calloc((size_t)dw->size, sizeof *counts);
        displs = calloc((size_t)dw->size, sizeof *displs);
    }
    c_gather(dw->def.poll_sleep_us, &mine, 1, MPI_INT, counts, 1, MPI_INT, 0,
             dw->comm);
    if (dw->rank == 0) {
        for (int r = 0; r < dw->size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc((size_t)(total ? total : 1) * 8u);
    }
    c_gatherv(dw->def.poll_sleep_us, v, mine, MPI_UINT64_T, all, counts, displs,
              MPI_UINT64_T, 0, dw->comm);
    uint64_t h = 0;
    if (dw->rank == 0 && all)
        h = chain(throng_world_step_count(dw->local), (keyed_hash *)all,
                  (size_t)total / 2u);
    c_bcast(dw->def.poll_sleep_us, &h, 1, MPI_UINT64_T, 0, dw->comm);
    free(all);
    free(counts);
    free(displs);
    free(v);
    return h;
}

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */
/* ------------------------------------------------------------------------ */

typedef struct part_header {
    char magic[8];
    uint32_t ranks, rank;
    uint32_t dims, record_bytes;
    uint64_t step, count, definition;
} part_header;

throng_status throng_mpi_world_save(throng_mpi_world *dw, const char *prefix) {
    if (!dw)
        return THRONG_ERR_NULL;
    static const char fn[] = "throng_mpi_world_save";
    char msg[MPI_ERROR_BYTES] = "", path[4096];
    throng_status st = THRONG_OK;
    if (!prefix || !*prefix)
        st = fail(dw, msg, THRONG_ERR_NULL, "%s: prefix is NULL or empty", fn);
    st = agree(dw, st, msg);
    if (st != THRONG_OK)
        return st;
    if (dw->rank == 0) {
        snprintf(path, sizeof path, "%s.def", prefix);
        st = throng_world_save_file(dw->local, path);
        if (st != THRONG_OK)
            fail(dw, msg, st, "%s: %s", fn, throng_world_last_error(dw->local));
    }
    snprintf(path, sizeof path, "%s.%d", prefix, dw->rank);
    FILE *f = st == THRONG_OK ? fopen(path, "wb") : NULL;
    if (st == THRONG_OK && !f)
        st = fail(dw, msg, THRONG_ERR_IO, "%s: cannot open %s", fn, path);
    if (f) {
        part_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, PART_MAGIC, 8);
        h.ranks = (uint32_t)dw->size;
        h.rank = (uint32_t)dw->rank;
        h.dims = (uint32_t)dw->dims;
        h.record_bytes = (uint32_t)sizeof(throng_agent_state);
        h.step = throng_world_step_count(dw->local);
        h.count = throng_world_agent_count(dw->local);
        h.definition = throng_world_definition_hash(dw->local);
        int ok = fwrite(&h, sizeof h, 1, f) == 1;
        for (uint64_t i = 0; i < h.count && ok; i++) {
            throng_agent a;
            throng_agent_state s;
            throng_agent_at(dw->local, (uint32_t)i, &a);
            local_state(dw, a, &s);
            ok = fwrite(&s, sizeof s, 1, f) == 1;
        }
        ok &= fclose(f) == 0;
        if (!ok)
            st = fail(dw, msg, THRONG_ERR_IO, "%s: cannot write %s", fn, path);
    }
    return agree(dw, st, msg);
}

/* Reads part file `path`: its header, and its records appended to *all. */
static throng_status read_part(const char *path, part_header *h,
                               throng_agent_state **all, size_t *n, size_t *cap,
                               char *msg) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(NULL, msg, THRONG_ERR_IO, "cannot open %s", path);
    throng_status st = THRONG_OK;
    if (fread(h, sizeof *h, 1, f) != 1 || memcmp(h->magic, PART_MAGIC, 8) ||
        h->record_bytes != sizeof(throng_agent_state))
        st = fail(NULL, msg, THRONG_ERR_IO,
                  "%s is not a part of a distributed throng snapshot of this "
                  "build",
                  path);
    for (uint64_t i = 0; i < h->count && st == THRONG_OK; i++) {
        if (*n == *cap) {
            size_t c = *cap ? 2 * *cap : 1024;
            throng_agent_state *g = realloc(*all, c * sizeof *g);
            if (!g) {
                st = fail(NULL, msg, THRONG_ERR_OUT_OF_MEMORY, "no memory");
                break;
            }
            *all = g;
            *cap = c;
        }
        if (fread(&(*all)[*n], sizeof **all, 1, f) != 1)
            st = fail(NULL, msg, THRONG_ERR_IO, "%s is truncated", path);
        else
            (*n)++;
    }
    fclose(f);
    return st;
}

throng_status throng_mpi_world_load(MPI_Comm comm, const char *prefix,
                                    const throng_mpi_def *def,
                                    throng_mpi_world **out) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const unsigned us = def ? def->poll_sleep_us : 0u;
    char msg[MPI_ERROR_BYTES] = "", error[MPI_ERROR_BYTES + 32], path[4096];
    throng_status st = THRONG_OK;
    if (out)
        *out = NULL;
    if (!prefix || !out)
        st = fail(NULL, msg, THRONG_ERR_NULL,
                  "throng_mpi_world_load: prefix and out must not be NULL");
    else if (def &&
             (def->threads < 0 || !(def->extra_reach >= 0.0f) ||
              !isfinite(def->extra_reach) || def->poll_sleep_us > 1000000u))
        st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                  "throng_mpi_world_load: threads must be >= 0, extra_reach "
                  "finite and >= 0, poll_sleep_us at most 1000000");
    const int same = same_waiting(comm, us);
    if (st == THRONG_OK && !same)
        st = fail(NULL, msg, THRONG_ERR_OUT_OF_RANGE,
                  "throng_mpi_world_load: poll_sleep_us is 0 on some ranks "
                  "and not on others");
    throng_world *tmpl = NULL;
    if (st == THRONG_OK) {
        snprintf(path, sizeof path, "%s.def", prefix);
        throng_world_load_def ld = throng_world_load_def_default();
        ld.error = msg;
        ld.error_capacity = MPI_ERROR_BYTES;
        st = throng_world_load_file(path, &ld, &tmpl);
    }
    /* Every part; this rank keeps every size-th record to contribute. */
    throng_agent_state *all = NULL;
    size_t n = 0, cap = 0;
    part_header h;
    memset(&h, 0, sizeof h);
    uint32_t ranks = 1;
    for (uint32_t r = 0; r < ranks && st == THRONG_OK; r++) {
        snprintf(path, sizeof path, "%s.%u", prefix, r);
        st = read_part(path, &h, &all, &n, &cap, msg);
        if (r == 0)
            ranks = h.ranks;
        if (st == THRONG_OK &&
            (h.step != throng_world_step_count(tmpl) ||
             h.definition != throng_world_definition_hash(tmpl)))
            st = fail(NULL, msg, THRONG_ERR_IO,
                      "%s belongs to another snapshot (step or definition "
                      "differ from %s.def)",
                      path, prefix);
    }
    size_t keep = 0;
    for (size_t i = 0; i < n && st == THRONG_OK; i++)
        if ((int)(i % (size_t)size) == rank)
            all[keep++] = all[i];
    throng_world *local = NULL;
    if (st == THRONG_OK)
        st = definition_copy(tmpl, def ? def->threads : 0, &local, msg);
    throng_world_destroy(tmpl);
    st = agree_on(comm, rank, 0u, st, msg, error, sizeof error);
    if (st == THRONG_OK)
        st = create_from(comm, local, all, keep, def, out);
    else
        throng_world_destroy(local);
    free(all);
    return st;
}
