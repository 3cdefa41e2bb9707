/* SPDX-License-Identifier: MIT */
/*
 * Contact resolution: whatever still overlaps after the move is pushed
 * apart, in a fixed number of passes.
 *
 * ORCA's fallback (when no velocity keeps every neighbour at bay) and
 * plain steering both let bodies sink into each other in a dense crowd.
 * Each pass moves every agent of a group with contact_iterations above
 * the pass's index by its share of each overlap it has with the
 * positions before the pass: half of it against an agent that resolves
 * contacts in the same pass (the other moves the other half), all of it
 * against one that does not. A pair alone is exactly touching after one
 * pass; in a packed crowd each pass takes the overlaps down further, as
 * a Jacobi iteration does.
 *
 * Every agent computes its own displacement from the state before the
 * pass (the first half of a pass, into the steering-force scratch, which
 * the move has consumed), and then every agent applies its own (the
 * second half): gather-only, so the positions do not depend on the
 * thread count or the order of rows.
 *
 * Static objects (spheres, boxes, wall segments, planes) never move, so
 * an agent that overlaps one takes the whole of it: its body (radius r)
 * closer than r to the surface, or inside, is moved out along the
 * surface's outward normal at the nearest point until it is exactly r
 * away. That push comes after the agent's share of the pass's overlaps
 * with agents, from where that share has taken it, and each of the
 * nearest overlapping objects in turn (nearest first, ties by id) moves
 * it from where the one before left it: a wall has the last word, so an
 * agent squeezed between a wall and a neighbour ends the pass outside
 * the wall (the neighbour's overlap is left to the next pass), and two
 * objects meeting at a joint, which both find the same nearest point,
 * do not push twice. A wall segment is thin, and its outside is the
 * side the agent's centre was on before the pass: a neighbour's push
 * that carried the centre across it does not send the body out on the
 * far side. Where the normal has no direction (the centre of a
 * sphere, on a segment, a box's two equally near faces) the choice is
 * geo_surface_near's fixed one, a segment's side taken against the
 * agent's velocity. Surfaces come from geo_near.c, the code the velocity
 * stage's obstacle constraints use. This is still each agent's own
 * displacement from the state before the pass: gather-only as before.
 * It runs over a block's rows after their agent pushes, and a world with
 * no objects skips it at the cost of one test per block.
 *
 * A group with contact_velocity also counts each push in the velocity:
 * the push over the tick's dt is added to it and the sum cut to max
 * speed (the velocity the agent moved at, as position-based dynamics
 * sets it), in the same half of the pass that applies the push, from the
 * agent's own push alone. Without it a pair pushed apart keeps the
 * velocities that drove it in, and ORCA's next tick, which reads them,
 * still sees the two closing.
 *
 * Interaction layers (throng_layers): an agent is pushed only by those
 * whose layer its mask holds, and takes the whole of an overlap with one
 * whose mask leaves its own layer out (that one does not move for it).
 *
 * Candidates come from the step's grid, built before the move, around
 * the cell each agent is in now: a pair is found when each agent moved
 * less than the neighbour radius minus the sum of their radii in the
 * step, which holds for any agent slower than that per step.
 *
 * A walk of the block costs a neighbour walk, and a packed front needs
 * tens of passes where a Jacobi pass takes only part of each overlap
 * away, so the walks are not repeated: the first pass's walk also lists,
 * per row, the candidates nearer than the sum of radii plus the row's
 * own radius (its margin), in the walk's order and with the periodic
 * image the walk saw each through, and later passes read only the
 * list. A pair left out was farther apart than touching by the margin,
 * and cannot touch before the two have moved that far between them; each
 * row sums the length of its pushes since the build (its travel), the
 * chunks report their largest, and once twice the largest travel nears
 * the smallest margin the next pass walks and lists again. Until then a
 * list holds every pair that can overlap, in the walk's order, so the
 * overlaps are summed in the same order as by a walk: the same bits as
 * walking every pass. A row with more near agents than its list holds
 * walks every pass. A pass in which no agent moved ends the resolution:
 * the later ones would find what it found (unless a group with fewer
 * passes drops out before the last, which changes the shares). A row
 * whose list is empty overlaps no one until the next build (a pair that
 * overlaps lists each other), so the passes after a build visit only the
 * rows left active (a list that is not empty, a row that walks, or one
 * with a static object within its radius plus the margin), each chunk's
 * in row order. With these, a pass after the first
 * costs about a tenth of a walk in a crowd, and nothing where no body
 * touches another.
 *
 * In a packed crowd most rows are settled after a pass or two (at
 * 100,000 agents, 93% of the rows are active and 6% move in each later
 * pass), so a plain pass (below) leaves out a listed row that did not
 * move in the pass before and none of whose listed agents did: it would
 * measure the positions that gave it no push then, and its push stays
 * zero. Rather than each row reading its list's flags, each row a pass
 * moves marks itself and its list due in the next (a pair within the
 * listing distance lists each other where every row has one radius),
 * and a row listing one whose list overflowed (which walks, and whose
 * list is partial) is due every pass. A row whose push is zero is not
 * placed again (its coordinates keep their bits, where adding a zero
 * would turn a -0 into +0); its velocity, with contact_velocity, is
 * still cut to max speed as before.
 *
 * The usual world's passes over the lists (plain(): 2D, unbounded, no
 * static object, one radius, every group with agents resolving in the
 * pass and seeing every other's layer) look up nothing but positions
 * (walk_list_plain()), and give the general passes' bits.
 *
 * The walk itself measures a block's candidates on the path's vector
 * lanes where there is one (walk_block_lanes()): the grid's cells are
 * the neighbour radius wide, so a crowd's block holds tens of candidates
 * for the few within a body or two, and the lanes hold, in the walk's
 * order, only those some row's radius could bring within the listing
 * distance; they then go through the walk's own tests in its order, so
 * the lists and the sums are the plain walk's to the bit, which the
 * scalar path keeps and the tests compare against.
 */
#include "contact.h"
#include "integrate.h"

#include <math.h>
#include <string.h>

#include "core.h"
#include "geo_near.h"
#include "parallel.h"
#include "grid_query.h"
#include "steer_flock.h"

/* Rows per chunk of a pass: a row costs about a neighbour walk, and each
 * chunk reports what moved in it (contact_chunk). */
#define CONTACT_GRAIN 512u
/* The most static objects one agent is moved out of in a pass, the
 * nearest: as many as the velocity stage constrains it by
 * (ORCA_STATIC_MAX). A body in more at once is in a corner of so many
 * surfaces that the next pass or step can take the rest. */
#define CONTACT_OBJECTS_MAX 8u
/* The most near agents a row's list holds. A row is listed with those
 * closer than the sum of radii plus its own radius: in a crowd packed to
 * touching (hexagonal, spacing 2 r) that is the six around it, pressed
 * a little closer some more; a row with more walks its block every pass. */
#define CONTACT_LIST_MAX 16u
/* Candidates of a range the lanes' walk measures at a time
 * (walk_block_lanes(); its columns live on the stack). */
#define CONTACT_HELD 128u
/* A row's count when it walks its block every pass instead: it has more
 * near agents than its list holds, or no radius to measure a margin by. */
#define CONTACT_WALK 0xffu
/* How much of a list's margin the travel may use before a pair the list
 * left out could overlap: all but a tenth, which covers the rounding of
 * the distances and of the summed travel by orders of magnitude. */
#define CONTACT_MARGIN_USE 0.9f

uint32_t contact_passes(const throng_world *w) {
    uint32_t most = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const uint32_t n = w->group_params[g].contact;
        if (w->groups[g].live && n > most)
            most = n;
    }
    return most;
}

/* Whether some group with rows counts its pushes in the velocity
 * (*some) and whether every one does (*all): once per pass, so that a
 * world where none or every one does looks up no row's group for it. */
static void pushes_in_velocity(const throng_world *w, uint64_t present,
                               int *some, int *all) {
    uint32_t met = 0, pushing = 0;
    for (uint32_t g = 0; g < w->group_count; g++)
        if (w->groups[g].live && is_present(present, g)) {
            met++;
            pushing += w->group_params[g].contact_velocity != 0u;
        }
    *some = pushing > 0u;
    *all = pushing == met;
}

/* What one chunk of a pass saw, summed by contact_resolve() in chunk
 * order. */
typedef struct contact_chunk {
    float travel;   /* the most a row has moved since the lists' build */
    float margin;   /* the least margin of a listed row (a build's) */
    uint32_t moved; /* rows whose push is not zero */
    uint32_t pad;
} contact_chunk;

/* The scratch block's header; the arrays follow it. */
typedef struct contact_lists {
    uint32_t rows;        /* room for this many rows */
    uint32_t chunks;      /* and this many chunks */
    uint32_t *near;       /* CONTACT_LIST_MAX rows per row */
    uint8_t *image;       /* the periodic image of each (image_code) */
    uint8_t *count;       /* how many are listed, or CONTACT_WALK */
    float *travel;        /* the length of each row's moves since */
    contact_chunk *chunk; /* per chunk of the pass */
    /* The rows a pass after a build visits (contact_push()): from each
     * chunk's first row, active_count[chunk] of them, in row order. */
    uint32_t *active;
    uint32_t *active_count;
    /* Whether a static object was within the row's radius plus its margin
     * at the build (near_object()): the others need no object query. */
    uint8_t *near_object;
    /* Whether the row's push in the pass was not zero (it moved). */
    uint8_t *moved;
    /* Whether a plain pass measures the row (due_now()): it or an agent
     * on its list moved in the pass before. Two rows of flags: pass p
     * reads row p & 1 and clears the other in its first half (a build
     * every row's, a later pass its active rows', the only ones read or
     * marked), and in its second half each row it moved marks itself and
     * those on its list there, for pass p + 1. Rows of other chunks are
     * marked too, so the flags are atomic (set to 1 only, and read only
     * in the next pass: the same on any thread count). */
    _Atomic uint8_t *due;
    /* Whether a row on the row's list walks (its own list is partial, so
     * its moves mark only itself): a plain pass measures such a row every
     * time. From the build. */
    uint8_t *always;
} contact_lists;

typedef struct contact_ctx {
    throng_world *w;
    contact_lists *lists;
    uint32_t pass;
    int build;         /* walk every block and list the near pairs anew */
    int plain;         /* a pass of a plain world (plain()) */
    float radius_most; /* the largest radius of a row */
    float inv_dt;      /* 1 / the tick's dt (contact_velocity) */
    int velocity;      /* some group with rows counts its pushes in velocity */
    int velocity_all;  /* and every group with rows does */
} contact_ctx;

static size_t contact_align(size_t n) {
    const size_t mask = (size_t)THRONG_ALIGN - 1;
    return (n + mask) & ~mask;
}

int contact_reserve(throng_world *w) {
    const contact_lists *old = w->contact_scratch;
    if (old && old->rows >= w->count)
        return 0;
    const uint32_t rows = w->capacity > w->count ? w->capacity : w->count;
    const uint32_t chunks = rows / CONTACT_GRAIN + 1u;
    const size_t head = contact_align(sizeof(contact_lists));
    const size_t list = (size_t)rows * CONTACT_LIST_MAX;
    const size_t near = contact_align(list * sizeof(uint32_t));
    const size_t image = contact_align(list);
    const size_t count = contact_align(rows);
    const size_t travel = contact_align((size_t)rows * sizeof(float));
    const size_t chunk = contact_align((size_t)chunks * sizeof(contact_chunk));
    const size_t active = contact_align((size_t)rows * sizeof(uint32_t));
    const size_t active_count =
        contact_align((size_t)chunks * sizeof(uint32_t));
    const size_t near_object = contact_align(rows);
    const size_t moved = contact_align(rows);
    const size_t due =
        contact_align(2u * (size_t)rows * sizeof(_Atomic uint8_t));
    const size_t always = rows;
    const size_t bytes = head + near + image + count + travel + chunk + active +
                         active_count + near_object + moved + due + always;
    char *block = world_alloc(w, bytes);
    if (!block)
        return 1;
    world_free(w, w->contact_scratch, w->contact_scratch_bytes);
    contact_lists *cl = (contact_lists *)(void *)block;
    cl->rows = rows;
    cl->chunks = chunks;
    char *at = block + head;
    cl->near = (uint32_t *)(void *)at;
    at += near;
    cl->image = (uint8_t *)at;
    at += image;
    cl->count = (uint8_t *)at;
    at += count;
    cl->travel = (float *)(void *)at;
    at += travel;
    cl->chunk = (contact_chunk *)(void *)at;
    at += chunk;
    cl->active = (uint32_t *)(void *)at;
    at += active;
    cl->active_count = (uint32_t *)(void *)at;
    at += active_count;
    cl->near_object = (uint8_t *)at;
    at += near_object;
    cl->moved = (uint8_t *)at;
    at += moved;
    cl->due = (_Atomic uint8_t *)(void *)at;
    at += due;
    cl->always = (uint8_t *)at;
    w->contact_scratch = block;
    w->contact_scratch_bytes = bytes;
    return 0;
}

static inline int resolves(const throng_world *w, uint32_t row, uint32_t pass) {
    return w->group_params[w->col.group[row]].contact > pass;
}

/* Whether row j moves its half of an overlap with an agent of layer bit
 * `layer` in this pass: it resolves contacts and sees that layer. */
static inline int shares_with(const throng_world *w, uint32_t j, uint32_t pass,
                              uint32_t layer) {
    const group_kernel_params *k = &w->group_params[w->col.group[j]];
    return k->contact > pass && (k->see & layer) != 0;
}

/* The periodic image a range shows its rows through, two bits an axis
 * (1: minus the box, 2: plus the box), so a list entry keeps the very
 * shift its walk found it with. */
static inline uint8_t image_code(const cell_range *cr) {
    unsigned code = 0;
    for (int a = 0; a < 3; a++)
        code |= (cr->shift[a] < 0.0f   ? 1u
                 : cr->shift[a] > 0.0f ? 2u
                                       : 0u)
                << (2 * a);
    return (uint8_t)code;
}

static inline void image_range(const throng_world *w, uint8_t code,
                               cell_range *cr) {
    for (int a = 0; a < 3; a++) {
        const unsigned bits = ((unsigned)code >> (2 * a)) & 3u;
        cr->shift[a] = bits == 1u   ? -w->grid.box[a]
                       : bits == 2u ? w->grid.box[a]
                                    : 0.0f;
    }
}

/* Adds row t's share of its overlap with row j (offset d from t to j,
 * d2 its square, reach the sum of their radii) to push. */
static inline void add_overlap(const throng_world *w, uint32_t t, uint32_t j,
                               const float d[3], float d2, float reach,
                               uint32_t pass, uint32_t layer, float push[3]) {
    const float dist = sqrtf(d2);
    const float share = shares_with(w, j, pass, layer) ? 0.5f : 1.0f;
    const float depth = share * (reach - dist);
    if (dist > 0.0f) {
        const float k = depth / dist;
        push[0] -= d[0] * k;
        push[1] -= d[1] * k;
        push[2] -= d[2] * k;
    } else {
        /* Coincident: apart along x, the lower slot (the earlier row in a
         * canonical world: world_ties()) to -x, so the two go
         * opposite ways. */
        const uint32_t *ties = world_ties(w);
        push[0] += ties[t] < ties[j] ? -depth : depth;
    }
}

/* Candidate j of row t, seen through cr (reach: the sum of their radii,
 * above 0): into t's list when the build lists and j is within the
 * listing distance (a full list stops the listing), and its share of an
 * overlap into push. The walks' one test of a candidate, in their order. */
static inline void meet(const contact_ctx *cc, uint32_t t, uint32_t j,
                        const cell_range *cr, float own_r, float reach,
                        uint32_t layer, uint32_t *near, uint8_t *image,
                        uint32_t *listed, int *listing, float push[3]) {
    const throng_world *w = cc->w;
    float d[3];
    const float d2 = flock_offset(w, cr, t, j, d);
    if (*listing) {
        const float keep = reach + own_r;
        if (d2 < keep * keep) {
            if (*listed < CONTACT_LIST_MAX) {
                near[*listed] = j;
                image[*listed] = image_code(cr);
                (*listed)++;
            } else {
                *listing = 0;
            }
        }
    }
    if (d2 < reach * reach)
        add_overlap(w, t, j, d, d2, reach, cc->pass, layer, push);
}

/* Row t's push from the overlaps among its block's candidates; on a
 * build, the candidates nearer than the sum of radii plus t's radius go
 * into t's list, in the order of the walk, so a pass over the list adds
 * the same overlaps in the same order as the walk would. */
static void walk_block(const contact_ctx *cc, uint32_t t, float own_r,
                       flock_block *blk, float push[3]) {
    throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    const cell_range *ranges = flock_block_of(w, t, blk);
    const int range_count = blk->count;
    /* Copied: the stores below may alias the parameters (the build does
     * not assume strict aliasing). */
    const group_kernel_params *own = &w->group_params[c->group[t]];
    const int filter = own->filter;
    const uint32_t see = own->see, layer = own->layer_bit;
    contact_lists *cl = cc->lists;
    uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    uint8_t *image = cl->image + (size_t)t * CONTACT_LIST_MAX;
    int listing = cc->build && own_r > 0.0f;
    uint32_t listed = 0;
    for (int r = 0; r < range_count; r++) {
        const cell_range *cr = &ranges[r];
        for (uint32_t j = cr->begin; j < cr->end; j++) {
            const float reach =
                own_r + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
            if (j == t || !(reach > 0.0f) || (filter && !flock_sees(w, see, j)))
                continue;
            meet(cc, t, j, cr, own_r, reach, layer, near, image, &listed,
                 &listing, push);
        }
    }
    if (cc->build)
        cl->count[t] = listing ? (uint8_t)listed : (uint8_t)CONTACT_WALK;
}

/* Row t's push and list as walk_block() makes them, with the candidates
 * measured on the path's lanes: each range's rows, CONTACT_HELD at a
 * time, pass through hold_rows() (the squared distances of
 * flock_offset(), in the walk's order), which keeps those that any row's
 * radius could bring within the listing or the overlap distance; the
 * kept, few in a crowd where the block holds tens, then go through the
 * walk's own tests in the walk's order, so the list and the sums of the
 * overlaps are the walk's to the bit. For a row whose mask hides no
 * layer (the walk filters the others). */
static void walk_block_lanes(const contact_ctx *cc, uint32_t t, float own_r,
                             flock_block *blk, float push[3]) {
    throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    const cell_range *ranges = flock_block_of(w, t, blk);
    const int range_count = blk->count;
    const uint32_t layer = w->group_params[c->group[t]].layer_bit;
    contact_lists *cl = cc->lists;
    uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    uint8_t *image = cl->image + (size_t)t * CONTACT_LIST_MAX;
    int listing = cc->build && own_r > 0.0f;
    uint32_t listed = 0;
    /* Rounding is monotone, so each candidate's reach (own_r + its
     * radius) and listing distance (that plus own_r) are at most these. */
    const float reach_most = own_r + cc->radius_most;
    const float far = listing ? reach_most + own_r : reach_most;
    int32_t d2_bits[CONTACT_HELD + FLOCK_HELD_SLACK];
    uint32_t rows[CONTACT_HELD + FLOCK_HELD_SLACK];
    const flock_held held = { d2_bits, rows };
    flock_rows_query a = {
        .px = c->px,
        .py = c->py,
        .pz = c->pz,
        .R2 = far * far,
        .limit = far * far,
        .self = t, /* hold_rows() leaves the agent out by its row */
        .three = w->dims == 3,
    };
    for (int r = 0; r < range_count; r++) {
        const cell_range *cr = &ranges[r];
        a.q[0] = c->px[t] - cr->shift[0];
        a.q[1] = c->py[t] - cr->shift[1];
        a.q[2] = a.three ? c->pz[t] - cr->shift[2] : 0.0f;
        for (uint32_t from = cr->begin; from < cr->end;) {
            const uint32_t stop =
                cr->end - from > CONTACT_HELD ? from + CONTACT_HELD : cr->end;
            const uint32_t part[2] = { from, stop };
            const uint32_t m = w->hold_rows(&a, part, 1, &held, 0);
            for (uint32_t i = 0; i < m; i++) {
                const uint32_t j = rows[i];
                const float reach =
                    own_r + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
                if (!(reach > 0.0f))
                    continue;
                meet(cc, t, j, cr, own_r, reach, layer, near, image, &listed,
                     &listing, push);
            }
            from = stop;
        }
    }
    if (cc->build)
        cl->count[t] = listing ? (uint8_t)listed : (uint8_t)CONTACT_WALK;
}

/* Row t's push from the overlaps with the rows of its list. */
static void walk_list(const contact_ctx *cc, uint32_t t, float own_r,
                      float push[3]) {
    const throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    const contact_lists *cl = cc->lists;
    const uint32_t layer = w->group_params[c->group[t]].layer_bit;
    const uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    const uint8_t *image = cl->image + (size_t)t * CONTACT_LIST_MAX;
    const uint32_t listed = cl->count[t];
    cell_range cr = { 0u, 0u, { 0.0f, 0.0f, 0.0f } };
    uint8_t shown = 0;
    for (uint32_t i = 0; i < listed; i++) {
        const uint32_t j = near[i];
        if (image[i] != shown) {
            shown = image[i];
            image_range(w, shown, &cr);
        }
        const float reach =
            own_r + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
        float d[3];
        const float d2 = flock_offset(w, &cr, t, j, d);
        if (d2 < reach * reach)
            add_overlap(w, t, j, d, d2, reach, cc->pass, layer, push);
    }
}

/* walk_list() in a plain world's pass (plain()): every listed agent
 * shares the overlap, has the row's radius (reach is twice it) and is
 * seen through no image, so nothing is looked up but the positions; the
 * offsets, distances, shares and sums are walk_list()'s to the bit. (A
 * term for every listed agent, zero for one not overlapping, would take
 * the branch away, which a crowd's mix of touching and not mispredicts;
 * measured, the square root and division of each then cost more.) */
static void walk_list_plain(const contact_ctx *cc, uint32_t t, float reach,
                            float push[2]) {
    const throng_world *w = cc->w;
    const float *px = w->col.px, *py = w->col.py;
    const contact_lists *cl = cc->lists;
    const uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    const uint32_t listed = cl->count[t];
    const float x = px[t], y = py[t], reach2 = reach * reach;
    float sx = 0.0f, sy = 0.0f;
    for (uint32_t i = 0; i < listed; i++) {
        const uint32_t j = near[i];
        const float dx = px[j] - x, dy = py[j] - y;
        const float d2 = dx * dx + dy * dy;
        const float dist = sqrtf(d2);
        const float k = 0.5f * (reach - dist) / dist;
        const float term = d2 < reach2 && d2 > 0.0f ? k : 0.0f;
        sx -= dx * term;
        sy -= dy * term;
        if (d2 == 0.0f) {
            /* Coincident: add_overlap()'s split along x. */
            const uint32_t *ties = world_ties(w);
            const float depth = 0.5f * reach;
            sx += ties[t] < ties[j] ? -depth : depth;
        }
    }
    push[0] = sx;
    push[1] = sy;
}

/* Moves row t's body, displaced by its share of the pass's agent
 * overlaps (in the scratch), out of the static objects it overlaps there:
 * each of the nearest in turn, from where the one before left it, by the
 * whole depth along the outward normal. The displacement is left to the
 * bit when nothing overlaps. */
static void push_out_of_objects(throng_world *w, uint32_t t) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const float r = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
    float push[3] = { w->steer_x[t], w->steer_y[t],
                      three ? w->steer_z[t] : 0.0f };
    const double start[3] = { (double)c->px[t], (double)c->py[t],
                              three ? (double)c->pz[t] : 0.0 };
    const double v[3] = { (double)c->vx[t], (double)c->vy[t],
                          three ? (double)c->vz[t] : 0.0 };
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = start[k] + (double)push[k];
    const double radius = (double)r;
    geo_near near[CONTACT_OBJECTS_MAX];
    const uint32_t n = geo_nearest(w, p, v, radius, CONTACT_OBJECTS_MAX, near);
    int moved = 0;
    for (uint32_t i = 0; i < n; i++) {
        geo_near s = near[i];
        /* The first was measured here; the rest again, from where the
         * pushes before have taken the body. */
        const geo_object *o = &w->geo->objects[s.id];
        if (i > 0)
            (void)geo_surface_near(o, w->dims, p, v, &s);
        if (o->kind == GEO_SEGMENT) {
            /* A segment is thin: a push that carried the centre across
             * it would move the body out on the far side. Its outside
             * is the side the centre was on before the pass. */
            geo_near before;
            (void)geo_surface_near(o, w->dims, start, v, &before);
            if (s.n[0] * before.n[0] + s.n[1] * before.n[1] < 0.0) {
                for (int k = 0; k < 3; k++)
                    s.n[k] = -s.n[k];
                s.dist = -s.dist;
            }
        }
        const double depth = radius - s.dist;
        if (!(depth > 0.0))
            continue;
        for (int k = 0; k < 3; k++)
            p[k] += s.n[k] * depth;
        moved = 1;
    }
    if (!moved)
        return;
    w->steer_x[t] = (float)(p[0] - start[0]);
    w->steer_y[t] = (float)(p[1] - start[1]);
    if (three)
        w->steer_z[t] = (float)(p[2] - start[2]);
}

/* Row t's push into its scratch: its share of its overlaps with agents. */
static inline void row_push(const contact_ctx *cc, uint32_t t, int lanes,
                            flock_block *blk) {
    throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    contact_lists *cl = cc->lists;
    float push[3] = { 0.0f, 0.0f, 0.0f };
    if (resolves(w, t, cc->pass)) {
        const float own_r = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
        if (cc->build || cl->count[t] == CONTACT_WALK) {
            if (lanes && !w->group_params[c->group[t]].filter)
                walk_block_lanes(cc, t, own_r, blk, push);
            else
                walk_block(cc, t, own_r, blk, push);
        } else
            walk_list(cc, t, own_r, push);
    } else if (cc->build) {
        cl->count[t] = 0;
    }
    w->steer_x[t] = push[0];
    w->steer_y[t] = push[1];
    if (w->dims == 3)
        w->steer_z[t] = push[2];
}

/* Whether the pass visits only the rows a build left active (every pass
 * but a build): a row whose list is empty had no agent within its
 * margin, overlaps none until the next build (an overlapping pair lists
 * each other), and so is not pushed by an agent; nor by a static object
 * when none was within its radius plus the margin (near_object()). Its
 * push stays the zero of the build. */
static inline int only_active(const contact_ctx *cc) {
    return !cc->build;
}

static inline int has_objects(const throng_world *w) {
    return w->geo != NULL && w->geo->live > 0;
}

/* Whether some static object's surface is within row t's radius plus its
 * margin (its radius again) of its centre: until the next build, the rows
 * farther away move less than the margin and stay out of every object. */
static int near_object(const throng_world *w, uint32_t t) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const double r = (double)c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
    const double p[3] = { (double)c->px[t], (double)c->py[t],
                          three ? (double)c->pz[t] : 0.0 };
    const double v[3] = { (double)c->vx[t], (double)c->vy[t],
                          three ? (double)c->vz[t] : 0.0 };
    geo_near nearest;
    return geo_nearest(w, p, v, 2.0 * r, 1, &nearest) > 0;
}

/* The flags (contact_lists.due) pass `pass` reads, and those it marks
 * for the next. */
static inline _Atomic uint8_t *due_now(const contact_lists *cl, uint32_t pass) {
    return cl->due + (size_t)(pass & 1u) * cl->rows;
}

static inline _Atomic uint8_t *due_next(const contact_lists *cl,
                                        uint32_t pass) {
    return cl->due + (size_t)((pass + 1u) & 1u) * cl->rows;
}

/* Row t moved in the pass: it and the rows on its list are due in the
 * next (a listed pair lists each other, in a plain world, unless one
 * walks: always[] covers those). */
static inline void due_mark(const contact_lists *cl, _Atomic uint8_t *next,
                            uint32_t t) {
    atomic_store_explicit(&next[t], 1, memory_order_relaxed);
    const uint32_t listed = cl->count[t];
    if (listed == CONTACT_WALK)
        return;
    const uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    for (uint32_t i = 0; i < listed; i++)
        atomic_store_explicit(&next[near[i]], 1, memory_order_relaxed);
}

/* Whether a row on row t's list walks (contact_lists.always). */
static int lists_a_walker(const contact_lists *cl, uint32_t t) {
    const uint32_t listed = cl->count[t];
    if (listed == CONTACT_WALK)
        return 0;
    const uint32_t *near = cl->near + (size_t)t * CONTACT_LIST_MAX;
    for (uint32_t i = 0; i < listed; i++)
        if (cl->count[near[i]] == CONTACT_WALK)
            return 1;
    return 0;
}

/* Whether pass `pass` of w is plain: the world is 2D and not periodic,
 * with no static object, every row has the one radius (above 0), and
 * every group with rows (`present`) resolves in this pass and sees the
 * layers of all of them, so every overlap is shared and every listed
 * pair lists each other. A pass over the lists then needs nothing but
 * positions (walk_list_plain()) and is the general pass to the bit; a
 * plain pass, a build too, marks the rows due in the next (the pass
 * before a plain one is plain as well: a group's passes only run out). */
static int plain(const throng_world *w, uint64_t present, uint32_t pass) {
    if (w->dims != 2 || w->boundary == THRONG_BOUNDARY_PERIODIC ||
        has_objects(w) || !(w->uniform & UNIFORM_RADIUS) || w->count == 0 ||
        !(w->col.radius[0] > 0.0f))
        return 0;
    uint32_t layers = 0, seen = ~0u;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        if (!w->groups[g].live || !is_present(present, g))
            continue;
        if (!(k->contact > pass))
            return 0;
        layers |= k->layer_bit;
        seen &= k->see;
    }
    return (layers & seen) == layers;
}

/* Notes row t's push (x, y, z; z is 0 in the plane) in what its chunk
 * saw: whether it moved (contact_lists.moved) and its travel since the
 * lists' build, from `before` (0 on the build). */
static inline void note_push(contact_lists *cl, contact_chunk *seen, uint32_t t,
                             float x, float y, float z, float before) {
    const float len = sqrtf(x * x + y * y + z * z);
    const uint8_t moved = x != 0.0f || y != 0.0f || z != 0.0f;
    cl->moved[t] = moved;
    seen->moved += moved;
    const float travel = before + len;
    cl->travel[t] = travel;
    seen->travel = travel > seen->travel ? travel : seen->travel;
}

/* active_push() in a plain pass (plain()): a row not due
 * (contact_lists.due) keeps the zero push it had in the pass before
 * (neither it nor a listed agent moved since), and its travel. */
static void active_push_plain(const contact_ctx *cc, uint32_t begin) {
    throng_world *w = cc->w;
    contact_lists *cl = cc->lists;
    const uint32_t chunk = begin / CONTACT_GRAIN;
    const uint32_t *rows = cl->active + begin;
    const uint32_t n = cl->active_count[chunk];
    const int lanes = w->hold_rows != NULL;
    const float reach = w->col.radius[0] + w->col.radius[0];
    float *steer_x = w->steer_x, *steer_y = w->steer_y, *travels = cl->travel;
    const _Atomic uint8_t *due = due_now(cl, cc->pass);
    _Atomic uint8_t *next = due_next(cl, cc->pass);
    const uint8_t *always = cl->always, *count = cl->count;
    uint8_t *now = cl->moved;
    flock_block blk;
    flock_block_reset(&blk);
    contact_chunk seen = { 0.0f, INFINITY, 0u, 0u };
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t t = rows[i];
        float push[2];
        /* Cleared for the marks of this pass's second half; only active
         * rows are marked (a listed pair lists each other) and read. */
        atomic_store_explicit(&next[t], 0, memory_order_relaxed);
        if (!atomic_load_explicit(&due[t], memory_order_relaxed) &&
            !always[t] && count[t] != CONTACT_WALK) {
            now[t] = 0;
            seen.travel = travels[t] > seen.travel ? travels[t] : seen.travel;
            continue;
        }
        if (count[t] == CONTACT_WALK) {
            row_push(cc, t, lanes, &blk);
            push[0] = steer_x[t];
            push[1] = steer_y[t];
        } else {
            walk_list_plain(cc, t, reach, push);
            steer_x[t] = push[0];
            steer_y[t] = push[1];
        }
        note_push(cl, &seen, t, push[0], push[1], 0.0f, travels[t]);
    }
    cl->chunk[chunk] = seen;
}

/* A pass after a build over the chunk from `begin`: the active rows'
 * pushes and what the chunk saw (the others keep their zero push and
 * their travel). */
static void active_push(const contact_ctx *cc, uint32_t begin) {
    throng_world *w = cc->w;
    contact_lists *cl = cc->lists;
    const uint32_t chunk = begin / CONTACT_GRAIN;
    const uint32_t *rows = cl->active + begin;
    const uint32_t n = cl->active_count[chunk];
    const int three = w->dims == 3;
    const int lanes = w->hold_rows != NULL;
    flock_block blk;
    flock_block_reset(&blk);
    for (uint32_t i = 0; i < n; i++)
        row_push(cc, rows[i], lanes, &blk);
    if (has_objects(w))
        for (uint32_t i = 0; i < n; i++)
            if (cl->near_object[rows[i]] && resolves(w, rows[i], cc->pass))
                push_out_of_objects(w, rows[i]);
    contact_chunk seen = { 0.0f, INFINITY, 0u, 0u };
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t t = rows[i];
        note_push(cl, &seen, t, w->steer_x[t], w->steer_y[t],
                  three ? w->steer_z[t] : 0.0f, cl->travel[t]);
    }
    cl->chunk[chunk] = seen;
}

/* The first half of a pass: each resolving row's displacement, and what
 * the chunk saw (contact_chunk). */
static void contact_push(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const contact_ctx *cc = ctx;
    if (only_active(cc)) {
        if (cc->plain)
            active_push_plain(cc, begin);
        else
            active_push(cc, begin);
        return;
    }
    throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    contact_lists *cl = cc->lists;
    const int three = w->dims == 3;
    const int lanes = w->hold_rows != NULL;
    flock_block blk;
    flock_block_reset(&blk);
    for (uint32_t t = begin; t < end; t++)
        row_push(cc, t, lanes, &blk);
    /* The objects' pushes, after the agents' (a loop of their own keeps
     * the neighbour loop as tight as in a world without objects). */
    if (has_objects(w))
        for (uint32_t t = begin; t < end; t++)
            if (resolves(w, t, cc->pass))
                push_out_of_objects(w, t);
    /* A build from here on: every other pass visits the active rows
     * alone (above). */
    contact_chunk seen = { 0.0f, INFINITY, 0u, 0u };
    _Atomic uint8_t *next = due_next(cl, cc->pass);
    for (uint32_t t = begin; t < end; t++) {
        if (cc->plain)
            atomic_store_explicit(&next[t], 0, memory_order_relaxed);
        note_push(cl, &seen, t, w->steer_x[t], w->steer_y[t],
                  three ? w->steer_z[t] : 0.0f, 0.0f);
        if (cl->count[t] != CONTACT_WALK && resolves(w, t, cc->pass)) {
            const float r = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
            seen.margin = r < seen.margin ? r : seen.margin;
        }
    }
    cl->chunk[begin / CONTACT_GRAIN] = seen;
    /* The positions are still those before the pass. */
    const int objects = has_objects(w);
    uint32_t n = 0;
    for (uint32_t t = begin; t < end; t++) {
        const int near =
            objects && resolves(w, t, cc->pass) && near_object(w, t);
        cl->near_object[t] = (uint8_t)near;
        if (cl->count[t] != 0u || near)
            cl->active[begin + n++] = t;
    }
    cl->active_count[begin / CONTACT_GRAIN] = n;
}

/* A moved coordinate, as the integration places one: wrapped into a
 * periodic box, else kept finite. */
static inline float contact_place(const throng_world *w, int axis, float x) {
    return w->boundary == THRONG_BOUNDARY_PERIODIC
               ? periodic_wrap(x, w->box[axis])
               : saturate(x);
}

/* Row t's push counts in its velocity (contact_velocity), in the plane:
 * the push times 1 / dt of the tick is added, and the sum cut to the
 * row's max speed (limit) by the move's own truncate (integrate.h), so
 * the velocity is the one the agent moved at. The columns are the
 * caller's, so the apply's loop holds them (inlined there). */
static inline __attribute__((always_inline)) void
push_velocity_2d(float *restrict vx, float *restrict vy, float sx, float sy,
                 float inv_dt, float limit) {
    float v[3] = { *vx + sx * inv_dt, *vy + sy * inv_dt, 0.0f };
    truncate_vec(v, 2, v[0] * v[0] + v[1] * v[1] + v[2] * v[2], limit);
    *vx = v[0];
    *vy = v[1];
}

/* The same for row t of w in either dimension. */
static void push_velocity(throng_world *w, uint32_t t, float inv_dt) {
    agent_columns *c = &w->col;
    const float limit = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
    if (w->dims != 3) {
        push_velocity_2d(&c->vx[t], &c->vy[t], w->steer_x[t], w->steer_y[t],
                         inv_dt, limit);
        return;
    }
    float v[3] = { c->vx[t] + w->steer_x[t] * inv_dt,
                   c->vy[t] + w->steer_y[t] * inv_dt,
                   c->vz[t] + w->steer_z[t] * inv_dt };
    truncate_vec(v, 3, v[0] * v[0] + v[1] * v[1] + v[2] * v[2], limit);
    c->vx[t] = v[0];
    c->vy[t] = v[1];
    c->vz[t] = v[2];
}

/* On a plain world's build, for the chunk from `begin` to end: whether
 * each row lists a walker (contact_lists.always). */
static void list_walkers(const contact_lists *cl, uint32_t begin,
                         uint32_t end) {
    for (uint32_t t = begin; t < end; t++)
        cl->always[t] = (uint8_t)lists_a_walker(cl, t);
}

/* The second half: every row applies its own displacement (the chunk
 * from `begin`; after a build, its active rows: the others' pushes are
 * zero, and the build's pass has placed them already); in a plain
 * world each row that moved marks the rows due in the next pass. */
static void contact_apply(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const contact_ctx *cc = ctx;
    throng_world *w = cc->w;
    agent_columns *c = &w->col;
    const contact_lists *cl = cc->lists;
    const int active = only_active(cc);
    const uint32_t n =
        active ? cl->active_count[begin / CONTACT_GRAIN] : end - begin;
    const uint32_t *rows = cl->active + begin;
    const uint8_t *moved = cl->moved;
    /* Held here: the stores below may alias the world (the build does
     * not assume strict aliasing), and a pass after a build applies
     * little more than an add per row. */
    float *px = c->px, *py = c->py, *pz = c->pz;
    const float *sx = w->steer_x, *sy = w->steer_y, *sz = w->steer_z;
    const int three = w->dims == 3;
    const int velocity = cc->velocity, each = !cc->velocity_all;
    const float inv_dt = cc->inv_dt;
    if (cc->plain && cc->build)
        list_walkers(cl, begin, end);
    /* A plain world is 2D and unbounded: this branch. */
    if (w->boundary != THRONG_BOUNDARY_PERIODIC && !three) {
        const int marking = cc->plain;
        _Atomic uint8_t *next = due_next(cl, cc->pass);
        float *vx = c->vx, *vy = c->vy;
        const float *max_speed = c->max_speed;
        const int one_speed = (w->uniform & UNIFORM_MAX_SPEED) != 0u;
        const float speed = max_speed[0];
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t t = active ? rows[i] : begin + i;
            if (moved[t]) {
                px[t] = saturate(px[t] + sx[t]);
                py[t] = saturate(py[t] + sy[t]);
                if (marking)
                    due_mark(cl, next, t);
            }
            if (velocity &&
                (!each || w->group_params[c->group[t]].contact_velocity))
                push_velocity_2d(&vx[t], &vy[t], sx[t], sy[t], inv_dt,
                                 one_speed ? speed : max_speed[t]);
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t t = active ? rows[i] : begin + i;
        if (moved[t]) {
            px[t] = contact_place(w, 0, px[t] + sx[t]);
            py[t] = contact_place(w, 1, py[t] + sy[t]);
            if (three)
                pz[t] = contact_place(w, 2, pz[t] + sz[t]);
        }
        if (velocity &&
            (!each || w->group_params[c->group[t]].contact_velocity))
            push_velocity(w, t, inv_dt);
    }
}

/* Whether some group stops resolving after pass `pass` and before the
 * last: its agents then change from sharing overlaps to holding still. */
static int sharing_changes(const throng_world *w, uint32_t pass,
                           uint32_t passes) {
    for (uint32_t g = 0; g < w->group_count; g++) {
        const uint32_t n = w->group_params[g].contact;
        if (w->groups[g].live && n > pass + 1u && n < passes)
            return 1;
    }
    return 0;
}

void contact_start(contact_run *run, uint32_t passes, float dt) {
    INVARIANT(dt > 0.0f, "a push counts in velocity over a tick's dt");
    run->dt = dt;
    run->pass = 0;
    run->passes = passes;
    run->rebuild = 1;
    run->travel = 0.0f;
    run->margin = 0.0f;
    run->present = 0;
}

/* The largest radius of a row (0 for none). */
static float radius_most(const throng_world *w) {
    const float *radius = w->col.radius;
    if (w->count == 0)
        return 0.0f;
    if (w->uniform & UNIFORM_RADIUS)
        return radius[0];
    float most = 0.0f;
    for (uint32_t t = 0; t < w->count; t++)
        most = radius[t] > most ? radius[t] : most;
    return most;
}

uint32_t contact_pass(throng_world *w, parallel_sched *sched,
                      contact_run *run) {
    INVARIANT(sched->failed || (w->grid.valid && w->grid.count == w->count),
              "contacts are found through this step's grid");
    INVARIANT(w->count == 0 || (w->steer_x && w->steer_y),
              "contact resolution has its scratch");
    contact_lists *cl = w->contact_scratch;
    INVARIANT(w->count == 0 || (cl && cl->rows >= w->count),
              "contact resolution has its lists");
    INVARIANT(run->pass < run->passes, "a pass is left to run");
    const uint32_t pass = run->pass++;
    if (w->count == 0)
        return 0;
    const uint32_t chunks = (w->count - 1u) / CONTACT_GRAIN + 1u;
    /* A pair left out of a list was at least the listing row's radius
     * (its margin) farther apart than touching; it cannot touch before
     * the two have moved that far between them. */
    const int build = run->rebuild ||
                      !(2.0f * run->travel < CONTACT_MARGIN_USE * run->margin);
    run->rebuild = 0;
    if (build)
        run->present = groups_present(w);
    contact_ctx ctx = { .w = w,
                        .lists = cl,
                        .pass = pass,
                        .build = build,
                        .plain = plain(w, run->present, pass),
                        .radius_most = radius_most(w),
                        .inv_dt = 1.0f / run->dt };
    pushes_in_velocity(w, run->present, &ctx.velocity, &ctx.velocity_all);
    parallel_for(sched, w->count, CONTACT_GRAIN, contact_push, &ctx);
    parallel_for(sched, w->count, CONTACT_GRAIN, contact_apply, &ctx);
    uint32_t moved = 0;
    float travel = 0.0f;
    if (build)
        run->margin = INFINITY;
    for (uint32_t k = 0; k < chunks; k++) {
        const contact_chunk *seen = &cl->chunk[k];
        moved += seen->moved;
        travel = seen->travel > travel ? seen->travel : travel;
        if (build && seen->margin < run->margin)
            run->margin = seen->margin;
    }
    run->travel = travel;
    return moved;
}

int contact_settles(const throng_world *w, const contact_run *run) {
    INVARIANT(run->pass > 0, "a pass has run");
    return !sharing_changes(w, run->pass - 1u, run->passes);
}

void contact_resolve(throng_world *w, parallel_sched *sched, uint32_t passes,
                     float dt) {
    contact_run run;
    contact_start(&run, passes, dt);
    while (run.pass < run.passes) {
        const uint32_t moved = contact_pass(w, sched, &run);
        /* Nothing moved: every later pass would find what this one did. */
        if (moved == 0 && contact_settles(w, &run))
            break;
    }
}
