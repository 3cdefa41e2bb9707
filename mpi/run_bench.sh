#!/bin/sh
# SPDX-License-Identifier: MIT
# The distributed world's scaling runs (make MPI=1 mpi-bench): flock2d on
# 1, 2 and 4 ranks, weak (AGENTS per rank) and strong (AGENTS x 2 in all),
# each against the same crowd in one process (--compare). One JSON line a
# run, to OUT (default build/mpi-bench.json) and the terminal.
set -eu
BIN=${1:-build/throng-mpi-bench}
MPIEXEC=${MPIEXEC:-mpiexec}
AGENTS=${AGENTS:-20000}
STEPS=${STEPS:-200}
WARMUP=${WARMUP:-50}
THREADS=${THREADS:-1}
OUT=${OUT:-build/mpi-bench.json}
T=${MPI_TIMEOUT:-900}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
: >"$OUT"
for ranks in 1 2 4; do
    timeout "$T" "$MPIEXEC" -n "$ranks" "$BIN" --scenario flock2d \
        --agents "$AGENTS" --per-rank --steps "$STEPS" --warmup "$WARMUP" \
        --threads "$THREADS" --compare --json "$OUT"
done
for ranks in 1 2 4; do
    timeout "$T" "$MPIEXEC" -n "$ranks" "$BIN" --scenario flock2d \
        --agents $((AGENTS * 2)) --steps "$STEPS" --warmup "$WARMUP" \
        --threads "$THREADS" --compare --json "$OUT"
done
cat "$OUT"
