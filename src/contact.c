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
 * Interaction layers (throng_layers): an agent is pushed only by those
 * whose layer its mask holds, and takes the whole of an overlap with one
 * whose mask leaves its own layer out (that one does not move for it).
 *
 * Candidates come from the step's grid, built before the move, around
 * the cell each agent is in now: a pair is found when each agent moved
 * less than the neighbour radius minus the sum of their radii in the
 * step, which holds for any agent slower than that per step.
 */
#include "contact.h"

#include <math.h>
#include <string.h>

#include "core.h"
#include "geo_near.h"
#include "parallel.h"
#include "grid_query.h"
#include "steer_flock.h"

/* Rows per block of a pass: a row costs about a neighbour walk. */
#define CONTACT_GRAIN 512u
/* The most static objects one agent is moved out of in a pass, the
 * nearest: as many as the velocity stage constrains it by
 * (ORCA_STATIC_MAX). A body in more at once is in a corner of so many
 * surfaces that the next pass or step can take the rest. */
#define CONTACT_OBJECTS_MAX 8u

uint32_t contact_passes(const throng_world *w) {
    uint32_t most = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const uint32_t n = w->group_params[g].contact;
        if (w->groups[g].live && n > most)
            most = n;
    }
    return most;
}

typedef struct contact_ctx {
    throng_world *w;
    uint32_t pass;
} contact_ctx;

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

/* The first half of a pass: each resolving row's displacement. */
static void contact_push(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const contact_ctx *cc = ctx;
    throng_world *w = cc->w;
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    flock_block blk;
    blk.known = 0;
    for (uint32_t t = begin; t < end; t++) {
        float push[3] = { 0.0f, 0.0f, 0.0f };
        if (resolves(w, t, cc->pass)) {
            const cell_range *ranges = flock_block_of(w, t, &blk);
            const int range_count = blk.count;
            const float own_r = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
            const uint32_t own_slot = c->slot[t];
            /* Copied: the stores below may alias the parameters (the
             * build does not assume strict aliasing). */
            const group_kernel_params *own = &w->group_params[c->group[t]];
            const int filter = own->filter;
            const uint32_t see = own->see, layer = own->layer_bit;
            for (int r = 0; r < range_count; r++) {
                const cell_range *cr = &ranges[r];
                for (uint32_t j = cr->begin; j < cr->end; j++) {
                    const float reach =
                        own_r + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
                    if (j == t || !(reach > 0.0f) ||
                        (filter && !flock_sees(w, see, j)))
                        continue;
                    float d[3];
                    const float d2 = flock_offset(w, cr, t, j, d);
                    if (!(d2 < reach * reach))
                        continue;
                    /* d points from this agent to the other. */
                    const float dist = sqrtf(d2);
                    const float share =
                        shares_with(w, j, cc->pass, layer) ? 0.5f : 1.0f;
                    const float depth = share * (reach - dist);
                    if (dist > 0.0f) {
                        const float k = depth / dist;
                        push[0] -= d[0] * k;
                        push[1] -= d[1] * k;
                        push[2] -= d[2] * k;
                    } else {
                        /* Coincident: apart along x, the lower slot to
                         * -x, so the two go opposite ways. */
                        push[0] += own_slot < c->slot[j] ? -depth : depth;
                    }
                }
            }
        }
        w->steer_x[t] = push[0];
        w->steer_y[t] = push[1];
        if (three)
            w->steer_z[t] = push[2];
    }
    /* The objects' pushes, after the agents' (a loop of their own keeps
     * the neighbour loop as tight as in a world without objects). */
    if (w->geo != NULL && w->geo->live > 0)
        for (uint32_t t = begin; t < end; t++)
            if (resolves(w, t, cc->pass))
                push_out_of_objects(w, t);
}

/* A moved coordinate, as the integration places one: wrapped into a
 * periodic box, else kept finite. */
static inline float contact_place(const throng_world *w, int axis, float x) {
    return w->boundary == THRONG_BOUNDARY_PERIODIC
               ? periodic_wrap(x, w->box[axis])
               : saturate(x);
}

/* The second half: every row applies its own displacement. */
static void contact_apply(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const contact_ctx *cc = ctx;
    throng_world *w = cc->w;
    agent_columns *c = &w->col;
    for (uint32_t t = begin; t < end; t++) {
        c->px[t] = contact_place(w, 0, c->px[t] + w->steer_x[t]);
        c->py[t] = contact_place(w, 1, c->py[t] + w->steer_y[t]);
        if (w->dims == 3)
            c->pz[t] = contact_place(w, 2, c->pz[t] + w->steer_z[t]);
    }
}

void contact_resolve(throng_world *w, parallel_sched *sched, uint32_t passes) {
    INVARIANT(sched->failed || (w->grid.valid && w->grid.count == w->count),
              "contacts are found through this step's grid");
    INVARIANT(w->count == 0 || (w->steer_x && w->steer_y),
              "contact resolution has its scratch");
    for (uint32_t pass = 0; pass < passes; pass++) {
        contact_ctx ctx = { .w = w, .pass = pass };
        parallel_rows(sched, w->count, CONTACT_GRAIN, contact_push, &ctx);
        parallel_rows(sched, w->count, CONTACT_GRAIN, contact_apply, &ctx);
    }
}
