#!/bin/sh
# SPDX-License-Identifier: MIT
# The distributed world's tests (make MPI=1 mpi-test): every scene's hash
# after 1,000 steps on 1, 2, 3 and 4 ranks and 1 and 2 threads per rank,
# each equal to the single-process library's hash of the same scene in
# canonical order; ORCA and tied neighbours on a lattice; contact
# resolution, and steps of two ticks; unbounded space;
# the same with rebalancing every 50 steps, and on a clustered crowd; a
# snapshot written on 3 ranks and continued on 2 and 4; handles and
# lookups through migrations; and bad input refused on every rank. Every
# mpiexec runs under a timeout, so a hang fails the gate instead of
# stalling it.
set -eu
BIN=${1:-build/throng-mpi-tests}
MPIEXEC=${MPIEXEC:-mpiexec}
STEPS=${STEPS:-1000}
T=${MPI_TIMEOUT:-300}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
fails=0
# mpiexec as root: MPICH's hydra needs no flag. Where ranks outnumber the
# cores, the test program has them wait in short sleeps instead of MPI's
# spinning waits (throng_mpi_def.poll_sleep_us), or a 4-rank run on 2
# cores takes minutes. OpenMP's idle threads sleep too: the results do not
# depend on it.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
run() {
    n=$1; shift
    if ! timeout "$T" "$MPIEXEC" -n "$n" "$BIN" "$@"; then
        echo "FAIL: mpiexec -n $n $BIN $*" >&2
        fails=$((fails + 1))
    fi
}
for scene in flock2d:2000 every2d:1500 churn2d:1500; do
    name=${scene%%:*}; agents=${scene#*:}
    ref=$(timeout "$T" "$BIN" reference "$name" "$agents" "$STEPS")
    echo "$name: single process $ref"
    for ranks in 1 2 3 4; do
        for threads in 1 2; do
            run "$ranks" run "$name" "$agents" "$STEPS" "$threads" --expect "$ref"
        done
    done
done
# Navigation fields across ranks: nav2d is exits2d (1,000 walkers
# following a crowd-aware field out of a room through ORCA, removed as
# they reach an exit) with a second field of its own for every seventh
# walker, to a stairwell in the middle of the room where the ranks' boxes
# meet, counting the crowd every 5 steps, and that field's costs changed
# half way through the distributed API. After 300 steps (199 arrivals)
# the state and the list of arrivals (key, field, goal, position, in
# tick and key order) equal the single process on 1 to 4 ranks: the
# densities are the whole crowd's (counts summed over the ranks), an
# arrival is listed and removed by its owner alone, per-agent fields
# migrate, and the costs change on every rank. Rebalanced every 25 steps
# on 3 ranks as the crowd drains, the same.
NAV_STEPS=${NAV_STEPS:-300}
ref=$(timeout "$T" "$BIN" reference nav2d 1000 "$NAV_STEPS")
echo "nav2d: single process $ref"
for ranks in 1 2 3 4; do
    for threads in 1 2; do
        run "$ranks" run nav2d 1000 "$NAV_STEPS" "$threads" --expect "$ref"
    done
done
run 3 run nav2d 1000 "$NAV_STEPS" 1 --expect "$ref" --rebalance 25
# Saved on 3 ranks half way (the fields' counts with it) and continued on
# 2: the same state as the single process (the arrivals before the save
# are the first run's).
run 3 run nav2d 1000 "$NAV_STEPS" 1 --expect "$ref" --save-at $((NAV_STEPS / 2)) "$TMP/nav2d"
ref=$(timeout "$T" "$BIN" reference nav2d 1000 "$NAV_STEPS" --state-only)
run 2 run nav2d 1000 "$NAV_STEPS" 2 --expect "$ref" --load "$TMP/nav2d" --state-only
# The velocity stage across ranks (ORCA reads its neighbours' state before
# the step, which the ghosts hold) and ties: lattice2d is flock2d on a
# square lattice of exact coordinates, capped at the 6 nearest, its
# velocities through ORCA (the 10 nearest), where neighbours stand at
# equal distances everywhere, so which are kept and how pairs part must
# follow (cell, key) order, not the slots each rank gave them.
ref=$(timeout "$T" "$BIN" reference lattice2d 1200 "$STEPS")
echo "lattice2d: single process $ref"
for ranks in 2 3 4; do
    run "$ranks" run lattice2d 1200 "$STEPS" 1 --expect "$ref"
done
run 3 run lattice2d 1200 "$STEPS" 2 --expect "$ref"
# Contact resolution across ranks: after each move, and between its
# passes, every ghost takes its owner's position (the ghosts' own steps
# lack neighbours of theirs), so an owned agent's passes push it by the
# bodies it would meet in one world. crossing2d (600 agents in two crowds
# crossing through ORCA, 32 passes) and exits2d (500 walkers leaving a
# room through its exits, 16 passes, removed as they arrive) after 200
# steps on 1 to 4 ranks and 1 and 2 threads, rebalanced every 25 steps on
# 3, and crossing2d with steps of two ticks each (crossing2d/2) on 2 and
# 3 ranks: each equal to the single process, and no tick's travel past
# the ghosts' reach. (exits2d fails on 2 and 3 ranks when the ghosts keep
# their own moves; crossing2d's contacts seldom come near a border.)
CONTACT_STEPS=${CONTACT_STEPS:-200}
for scene in crossing2d:600 exits2d:500; do
    name=${scene%%:*}; agents=${scene#*:}
    ref=$(timeout "$T" "$BIN" reference "$name" "$agents" "$CONTACT_STEPS")
    echo "$name: single process $ref"
    for ranks in 1 2 3 4; do
        for threads in 1 2; do
            run "$ranks" run "$name" "$agents" "$CONTACT_STEPS" "$threads" --expect "$ref"
        done
    done
    run 3 run "$name" "$agents" "$CONTACT_STEPS" 1 --expect "$ref" --rebalance 25
done
ref=$(timeout "$T" "$BIN" reference crossing2d/2 600 "$CONTACT_STEPS")
echo "crossing2d/2: single process $ref"
for ranks in 2 3; do
    run "$ranks" run crossing2d/2 600 "$CONTACT_STEPS" 1 --expect "$ref"
done
# Moving boundaries, and a snapshot written on 3 ranks half way and
# continued on 2 and on 4, change nothing: on the churning scene, where
# agents come and go and pursue each other across the ranks.
name=churn2d; agents=1500
ref=$(timeout "$T" "$BIN" reference "$name" "$agents" "$STEPS")
run 3 run "$name" "$agents" "$STEPS" 1 --expect "$ref" --rebalance 50
run 3 run "$name" "$agents" "$STEPS" 1 --expect "$ref" --save-at $((STEPS / 2)) "$TMP/$name"
run 2 run "$name" "$agents" "$STEPS" 1 --expect "$ref" --load "$TMP/$name"
run 4 run "$name" "$agents" "$STEPS" 2 --expect "$ref" --load "$TMP/$name"
# A clustered crowd (90% of the agents in a disc of 5% of the box at its
# centre) on 3 ranks, whose boxes cut by volume would leave one rank half
# the crowd (688 of 1,500 at step 200): the same bits, and no rank holding
# more than 1.25 times its share.
ref=$(timeout "$T" "$BIN" reference cluster2d 1500 "$STEPS")
run 3 run cluster2d 1500 "$STEPS" 1 --expect "$ref" --rebalance 50
# Unbounded space: path2d (a crowd on a ring path, with separation) and
# crossing2d_steer (two crowds crossing, arrive and unaligned avoidance),
# where the root box is the crowd's bounding box and the outer boxes reach
# to infinity, on 2, 3 and 4 ranks and rebalanced every 50 steps on 3.
for name in path2d crossing2d_steer; do
    ref=$(timeout "$T" "$BIN" reference "$name" 1500 "$STEPS")
    echo "$name: single process $ref"
    for ranks in 2 3 4; do
        run "$ranks" run "$name" 1500 "$STEPS" 1 --expect "$ref"
    done
    run 3 run "$name" 1500 "$STEPS" 2 --expect "$ref" --rebalance 50
done
for ranks in 1 2 3 4; do
    run "$ranks" lookup
    run "$ranks" errors
done
# The distributed bench reads throng-bench's command line and writes its
# JSON: two scenes on 1 and 3 ranks, each entry named for its ranks, with
# the distributed figures, and the same state hash on both.
BENCH=${BENCH:-$(dirname "$BIN")/throng-mpi-bench}
if [ -x "$BENCH" ]; then
    for ranks in 1 3; do
        if ! timeout "$T" "$MPIEXEC" -n "$ranks" "$BENCH" \
            --scenario flock2d,every2d@1500 --agents 2000 --threads 1 \
            --steps 10 --warmup 2 --repeats 2 --quiet \
            --json "$TMP/bench-$ranks.json"; then
            echo "FAIL: mpiexec -n $ranks $BENCH" >&2
            fails=$((fails + 1))
        fi
    done
    # What a distributed run cannot do is refused with status 2 (usage):
    # a goal scene, a one-process option, an unknown option.
    for bad in "--scenario circle2d" "--scenario flock2d --record $TMP/r.sqlite" \
        "--scenario flock2d --bogus"; do
        status=0
        # shellcheck disable=SC2086 # the words are the bench's options
        timeout "$T" "$MPIEXEC" -n 2 "$BENCH" $bad --agents 500 --steps 2 \
            >/dev/null 2>&1 || status=$?
        if [ "$status" -ne 2 ]; then
            echo "FAIL: throng-mpi-bench $bad: status $status, not 2" >&2
            fails=$((fails + 1))
        fi
    done
    if ! python3 - "$TMP/bench-1.json" "$TMP/bench-3.json" <<'PY'
import json, sys
one, three = (json.load(open(p))["benchmarks"] for p in sys.argv[1:])
assert [b["name"] for b in three] == ["flock2d/2000/threads:1/ranks:3",
                                      "every2d/1500/threads:1/ranks:3"], three
for a, b in zip(one, three):
    assert a["state_hash"] == b["state_hash"], (a["name"], b["name"])
    assert b["ranks"] == 3 and b["ghosts_per_rank"] > 0
    assert b["bytes_sent_per_rank"] >= b["bytes_per_ghost"] * b["ghosts_per_rank"]
    assert a["ranks"] == 1 and a["ghosts_per_rank"] == 0
    assert len(b["repeat_ms"]) == 2 and b["ms_per_step_median"] > 0
print("mpi-test: throng-mpi-bench's JSON on 1 and 3 ranks, the same hashes")
PY
    then
        echo "FAIL: throng-mpi-bench's JSON" >&2
        fails=$((fails + 1))
    fi
fi
if [ "$fails" -ne 0 ]; then
    echo "mpi-test: $fails runs failed" >&2
    exit 1
fi
echo "mpi-test: every distributed run equals the single process"
