#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a test program as n processes side by side, each taking the next
# selected test no other has taken yet (THRONG_TEST_CLAIMS, tests/main.c),
# so they finish together however unequal the tests' times, then prints
# their outputs in turn and the sum; fails when any shard fails or ends
# without its summary line. For the slow builds (the
# sanitizers), whose tests mostly run one thread, on a machine with n
# cores (make test TEST_SHARDS=n, make tsan TEST_SHARDS=n).
#
# Usage: tests/run_shards.sh N OUT_PREFIX COMMAND [ARG ...]
# Each shard's output goes to OUT_PREFIX-k.txt; the claims to the
# directory OUT_PREFIX-claims, made afresh. Variables for COMMAND
# (sanitizer options) come from the environment.
set -u
# Side by side, the shards' OpenMP threads outnumber the cores, and a
# thread spinning at a barrier keeps a core from the thread it waits for:
# the small parallel regions of a test (a navigation field's tiles, a
# step of a few agents) then cost a time slice each, and a suite runs
# many times slower. Waiting threads sleep instead; no result depends on
# how threads wait.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
n=$1
prefix=$2
shift 2
claims=$prefix-claims
rm -rf "$claims"
mkdir -p "$claims" || exit 1
pids=
k=0
while [ "$k" -lt "$n" ]; do
    THRONG_TEST_CLAIMS="$claims" "$@" > "$prefix-$k.txt" 2>&1 &
    pids="$pids $!"
    k=$((k + 1))
done
status=0
for p in $pids; do
    wait "$p" || status=1
done
passed=0
failed=0
k=0
while [ "$k" -lt "$n" ]; do
    echo "== shard $k of $n"
    cat "$prefix-$k.txt"
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$prefix-$k.txt" | tail -n 1)
    if [ -z "$last" ]; then
        echo "run_shards: shard $k of $n ended without its summary" >&2
        status=1
    else
        passed=$((passed + ${last%% *}))
        rest=${last#*, }
        failed=$((failed + ${rest%% *}))
    fi
    k=$((k + 1))
done
echo "$passed passed, $failed failed ($n shards)"
exit "$status"
