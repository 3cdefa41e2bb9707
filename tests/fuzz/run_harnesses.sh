#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the libFuzzer harnesses side by side, one process each (libFuzzer's
# loop is single-threaded, so on a machine of n cores n harnesses take the
# time of one), each over a fresh copy of its committed seeds for SECONDS
# seconds; then prints each one's summary in turn. Fails when any harness
# crashes, trips a sanitizer or leaks, with the tail of its log and where
# its reproducer is.
#
# Usage: tests/fuzz/run_harnesses.sh FUZZ_DIR SEEDS SECONDS "FLAGS" HARNESS:MAX_LEN ...
set -u
dir=$1
seeds=$2
seconds=$3
flags=$4
shift 4
pids=
for spec in "$@"; do
    h=${spec%%:*}
    max=${spec#*:}
    run=$dir/run-$h
    rm -rf "$run"
    mkdir -p "$run/corpus" "$run/artifacts"
    cp "$seeds/$h"/* "$run/corpus/"
    echo "== fuzz_$h: $seconds s over $(ls "$run/corpus" | wc -l) seeds"
    (
        start=$(date +%s)
        # shellcheck disable=SC2086 # FLAGS are libFuzzer's options, split
        "$dir/fuzz_$h" $flags -max_total_time="$seconds" -max_len="$max" \
            -artifact_prefix="$run/artifacts/" "$run/corpus" > "$run/log" 2>&1
        echo "$? $(($(date +%s) - start))" > "$run/status"
    ) &
    pids="$pids $!"
done
for p in $pids; do
    wait "$p"
done
status=0
for spec in "$@"; do
    h=${spec%%:*}
    run=$dir/run-$h
    read -r rc took < "$run/status" || { rc=1; took=?; }
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
    echo "fuzz_$h: ${execs:-?} executions in $took s," \
        "$(ls "$run/corpus" | wc -l) inputs in $run/corpus, exit $rc"
    if [ "$rc" -ne 0 ]; then
        status=1
        tail -n 40 "$run/log"
        echo "fuzz_$h: FAILED; reproducer in $run/artifacts/, log $run/log" >&2
    fi
done
exit $status
