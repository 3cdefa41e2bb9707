/* SPDX-License-Identifier: MIT */
/*
 * throng_mpi.h: a throng world split across MPI processes (libthrong_mpi,
 * built by `make MPI=1`; the core library knows nothing of MPI).
 *
 * Space is divided into one box per rank by recursive bisection on agent
 * counts, from the periodic box (or, unbounded, the crowd's bounding box,
 * the outer boxes reaching to infinity). Each rank steps the agents whose
 * positions lie in its box with the ordinary engine (throng_world_step on
 * a local world). Before each tick it receives copies ("ghosts") of every
 * agent within the neighbour radius of its box from the ranks that own
 * them, and of every agent its own agents pursue, evade or follow,
 * wherever that agent is; the ghosts are stepped with the rest and thrown
 * away after the tick. Agents whose positions leave the box move to the
 * rank that owns them now, with all their columns and behaviour state.
 * Static objects and groups are the same on every rank: each rank's local
 * world is made from the same definition. Navigation fields count the
 * whole crowd (each rank's counts of its own agents, summed), and an
 * agent arriving at a goal is listed and removed by its owner alone.
 *
 * Results do not depend on the split. The local worlds run in canonical
 * order (throng_world_set_canonical_order): each grid cell's rows by host
 * key and random streams keyed by host key, so an agent meets the same
 * neighbours in the same order, and draws the same numbers, on whichever
 * rank it lives and whatever else that rank holds. The state after N
 * steps is the same to the bit for any number of ranks and threads, and
 * the same as one throng_world with the same agents in canonical order
 * (throng_mpi_hash_world and throng_mpi_world_hash compare them).
 *
 * Every agent has a non-zero host key, unique across the ranks: it is the
 * agent's global name (throng_mpi_agent), valid on every rank and through
 * migrations, and the order the cells are walked in. Keys are not to be
 * reused after an agent is removed.
 *
 * Every function taking a throng_mpi_world is collective: all ranks of the
 * communicator call it, in the same order. Each checks its input on its
 * own rank, then the ranks agree: when any rank refuses, every rank
 * returns that rank's status and its sentence (throng_mpi_world_last_error
 * names the rank), and nothing changed on any rank. No rank is left
 * waiting.
 *
 * Each tick's local step runs in stages (throng_world_tick_begin ..
 * _finish): contact resolution's passes read their neighbours' positions
 * after the move and after each pass, so before each pass every ghost
 * takes its owner's position (one exchange of 12 bytes a ghost and one
 * small allreduce a pass). The velocity stage (ORCA) reads only the
 * state before the step, which the ghosts hold. Both give the bits of
 * one world; a tick in which some agent travelled so far that twice its
 * travel plus twice the largest radius exceeds the ghosts' reach (the
 * neighbour radius plus extra_reach) may not, and is counted
 * (throng_mpi_stats.contact_inexact_ticks).
 */
#ifndef THRONG_MPI_H
#define THRONG_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "throng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct throng_mpi_world throng_mpi_world;

/* An agent's global handle: its host key. */
typedef struct throng_mpi_agent {
    uint64_t key;
} throng_mpi_agent;

typedef struct throng_mpi_def {
    /* Distributed steps between rebalancings of the boxes (recursive
     * bisection on the agents' counts); 0 never rebalances after the
     * first partition. Results are the same either way. Default 0. */
    uint32_t rebalance_every;
    /* Threads of each rank's local world (throng_world_def.threads). */
    int threads;
    /* true: every rank passes the same whole world to
     * throng_mpi_world_create and keeps the agents it owns; false
     * (default): each rank's world holds its own share of the crowd
     * (any agents, on any rank), and agents go to the ranks that own
     * them. */
    bool template_is_whole;
    /* Added to the neighbour radius to make the ghosts' reach, metres,
     * >= 0. Default 0 (the radius is all a step reads). */
    float extra_reach;
    /* How a rank waits for the others in a collective: 0 (default) with
     * MPI's own blocking calls, which spin; > 0 with the non-blocking
     * calls, tested in a short spin and then between sleeps of this many
     * microseconds, which leaves the core to the ranks still working:
     * for more ranks than cores (a laptop, a shared test machine). The
     * results are the same either way. 0 .. 1000000. */
    uint32_t poll_sleep_us;
} throng_mpi_def;

THRONG_API throng_mpi_def throng_mpi_def_default(void);

/* Communication and balance figures of the last distributed step, this
 * rank's, and totals since creation. */
typedef struct throng_mpi_stats {
    uint32_t ranks;
    uint32_t owned;         /* agents this rank owns */
    uint32_t ghosts;        /* ghosts it received for the last tick */
    uint32_t migrated;      /* agents it sent away in the last step */
    uint64_t bytes_sent;    /* by this rank in the last step */
    uint64_t messages_sent; /* point-to-point messages, last step */
    double comm_seconds;    /* in exchanges and agreement, last step */
    double step_seconds;    /* the whole last step */
    double total_comm_seconds, total_step_seconds;
    uint64_t total_bytes_sent;
    uint64_t steps;
    uint32_t rebalances;
    /* Ticks since creation whose contact passes may differ from one
     * world's: an agent travelled so far in the tick (its move and its
     * contact pushes) that twice that plus twice the largest radius
     * exceeded the ghosts' reach (the neighbour radius plus
     * throng_mpi_def.extra_reach), so a body it touched may have had no
     * ghost here. 0 in every scene the tests run; raise extra_reach if
     * not. */
    uint64_t contact_inexact_ticks;
} throng_mpi_stats;

/* Creates a distributed world over `comm` (collective). `world` gives
 * every rank its definition (settings, groups, objects, step count, all
 * equal across ranks: compared by throng_world_definition_hash) and its
 * agents (see throng_mpi_def.template_is_whole); every agent needs a
 * non-zero host key, unique across ranks. The first partition is chosen
 * from the agents' positions. `world` is only read. Refused everywhere
 * (*out NULL on every rank) for a NULL argument, definitions or step
 * counts that differ between ranks, an agent without a key, a key held
 * twice. */
THRONG_API throng_status throng_mpi_world_create(MPI_Comm comm,
                                                 const throng_world *world,
                                                 const throng_mpi_def *def,
                                                 throng_mpi_world **out);

/* Destroys it (collective: frees a duplicated communicator). */
THRONG_API void throng_mpi_world_destroy(throng_mpi_world *dw);

/* This rank's local world between steps: the agents it owns, read-only
 * for the host (positions, columns, stats). */
THRONG_API const throng_world *
throng_mpi_world_local(const throng_mpi_world *dw);

/* The last refusal's sentence, "rank R: ...", the same on every rank. */
THRONG_API const char *throng_mpi_world_last_error(const throng_mpi_world *dw);

/* The rank owning a position now; -1 for a non-finite one. Local. */
THRONG_API int throng_mpi_world_rank_of(const throng_mpi_world *dw,
                                        const float position[3]);

/* One step of dt seconds, split into ticks as throng_world_step splits
 * it (collective). */
THRONG_API throng_status throng_mpi_world_step(throng_mpi_world *dw, float dt);

/* Adds `count` agents on this rank (collective; other ranks may add
 * none). Each def's position must lie in this rank's box
 * (throng_mpi_world_rank_of), its host key be non-zero and held by no
 * agent on any rank; target_keys (may be NULL) gives each new agent the
 * key of the agent it targets, 0 for none. A refusal of any agent on any
 * rank adds nothing anywhere. out (may be NULL) receives the handles. */
THRONG_API throng_status throng_mpi_agents_add(throng_mpi_world *dw,
                                               uint32_t count,
                                               const throng_agent_def *defs,
                                               const uint64_t *target_keys,
                                               throng_mpi_agent *out);

/* Removes agents, each named on any one rank (collective). A key that no
 * rank holds refuses the whole call. */
THRONG_API throng_status throng_mpi_agents_remove(
    throng_mpi_world *dw, uint32_t count, const throng_mpi_agent *agents);

/* Looks an agent up from any rank (collective; each rank asks for its own
 * agent): *out_rank the rank that owns it, *out_state its state (either
 * may be NULL). THRONG_ERR_NOT_FOUND, on the asking rank only, when no
 * rank holds it. */
THRONG_API throng_status throng_mpi_agent_lookup(throng_mpi_world *dw,
                                                 throng_mpi_agent agent,
                                                 int *out_rank,
                                                 throng_agent_state *out_state);

/* The global agent count (collective). */
THRONG_API uint64_t throng_mpi_world_agent_count(throng_mpi_world *dw);

/* The hash of the whole state (collective; the same on every rank): the
 * step count and every agent's state, in host key order. Equal to
 * throng_mpi_hash_world of one world holding the same agents. */
THRONG_API uint64_t throng_mpi_world_hash(throng_mpi_world *dw);

/* The same hash of one ordinary world (local, no MPI). */
THRONG_API uint64_t throng_mpi_hash_world(const throng_world *world);

/* This rank's figures. */
THRONG_API throng_status throng_mpi_world_stats(const throng_mpi_world *dw,
                                                throng_mpi_stats *out);

/* Rebalances now (collective): new boxes from the agents' positions. */
THRONG_API throng_status throng_mpi_world_rebalance(throng_mpi_world *dw);

/* This rank's box: lo and hi per axis (infinite where it reaches out). */
THRONG_API throng_status throng_mpi_world_region(const throng_mpi_world *dw,
                                                 double lo[3], double hi[3]);

/* Writes a snapshot (collective): `prefix`.def, rank 0's definition (a
 * throng snapshot), and `prefix`.R, each rank's agents' states. */
THRONG_API throng_status throng_mpi_world_save(throng_mpi_world *dw,
                                               const char *prefix);

/* Restarts a saved world on any number of ranks (collective): each rank
 * reads every part and keeps the agents it owns under a new partition.
 * The run continues bit for bit as the saved one would have. */
THRONG_API throng_status throng_mpi_world_load(MPI_Comm comm,
                                               const char *prefix,
                                               const throng_mpi_def *def,
                                               throng_mpi_world **out);

/* Navigation fields. Every rank's local world holds the same fields
 * (its definition's objects); a field is named by the id and generation
 * of its handle in any rank's local world, or in the world the
 * distributed one was made from (the handle's world is not read). A
 * field that counts its crowd (density_interval) counts the whole
 * crowd: on the ticks it counts, each rank counts the agents it owns and
 * the counts are summed over the ranks, so densities, speeds and costs
 * are those of one world. */

/* The agents that arrived at a navigation goal during the last
 * distributed step, on any rank (local: the same list on every rank):
 * throng_world_nav_arrivals' records, in the order of their ticks and,
 * within a tick, of their host keys (not slots, which differ between
 * ranks); `agent` is the null handle (host_key names the agent), `field`
 * the field's handle in this rank's local world, `removed` says whether
 * it was removed (by its owner). Up to `capacity` into out; *out_count
 * how many arrived (above capacity exactly when cut, which
 * *out_truncated, may be NULL, says). THRONG_ERR_NULL for a NULL dw or
 * out_count, or a NULL out with a capacity. */
THRONG_API throng_status throng_mpi_world_nav_arrivals(
    const throng_mpi_world *dw, throng_nav_arrival *out, uint32_t capacity,
    uint32_t *out_count, bool *out_truncated);

/* throng_nav_field_set_costs on every rank (collective): every rank
 * passes the same costs (their bits are compared). Refused on every rank,
 * nothing changed: a field no rank's world holds
 * (THRONG_ERR_STALE_HANDLE), costs that differ between ranks
 * (THRONG_ERR_OUT_OF_RANGE), costs throng_nav_field_set_costs refuses. */
THRONG_API throng_status throng_mpi_nav_field_set_costs(throng_mpi_world *dw,
                                                        throng_object field,
                                                        const float *costs);

/* throng_nav_field_update on every rank (collective): rebuilds the field
 * now where it is out of date. Refused on every rank for a field that is
 * not one (THRONG_ERR_STALE_HANDLE). */
THRONG_API throng_status throng_mpi_nav_field_update(throng_mpi_world *dw,
                                                     throng_object field);

#ifdef __cplusplus
}
#endif

#endif /* THRONG_MPI_H */
