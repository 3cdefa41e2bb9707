#!/bin/sh
# SPDX-License-Identifier: MIT
# The bench writes each result file once, complete (make bench-interrupt-check):
#
#   1. a run stopped by SIGINT, SIGTERM or SIGKILL in the middle leaves no
#      result file and no temporary file behind, and an earlier result at
#      the same path untouched;
#   2. a run that ends writes complete files: the JSON reads back with
#      throng-compare, the CSV has its header and a row per configuration,
#      the SVG is closed.
#
# Environment (the Makefile sets it): BENCH, COMPARE, and WORK, a scratch
# folder.
set -eu
BENCH=${BENCH:-build/throng-bench}
COMPARE=${COMPARE:-build/throng-compare}
WORK=${WORK:-build/interrupt-check}
name=bench-interrupt-check

rm -rf "$WORK"
mkdir -p "$WORK"
fail() {
    echo "$name: $*" >&2
    exit 1
}

# Long enough to be stopped mid-run on any machine (minutes undisturbed).
long="--scenario flock2d --agents 20k --threads 1 --steps 100000 --warmup 0 --quiet"

# timeout runs the bench in the foreground, so SIGINT reaches it (a
# background job of a script starts with SIGINT ignored).
for signal in INT TERM KILL; do
    dir=$WORK/$signal
    mkdir -p "$dir"
    echo previous > "$dir/old.json"
    status=0
    # shellcheck disable=SC2086 # $long is a list of arguments
    timeout -s "$signal" 2 "$BENCH" $long --json "$dir/old.json" \
        --csv "$dir/new.csv" --plot "$dir/new.svg" > "$dir/log" 2>&1 ||
        status=$?
    [ "$status" -eq 124 ] || [ "$status" -eq 137 ] ||
        fail "SIG$signal: the run was not stopped by the signal (status $status)"
    left=$(cd "$dir" && ls -A | grep -v -e '^log$' -e '^old\.json$' || true)
    [ -z "$left" ] || fail "SIG$signal left files behind: $left"
    [ "$(cat "$dir/old.json")" = previous ] ||
        fail "SIG$signal: the earlier result at the same path was touched"
    echo "$name: SIG$signal mid-run: no result or temporary file left," \
        "the earlier result untouched"
done

dir=$WORK/complete
mkdir -p "$dir"
"$BENCH" --scenario flock2d,crossing2d_steer --agents 300 --threads 1,2 --steps 3 \
    --warmup 1 --quiet --json "$dir/run.json" --csv "$dir/run.csv" \
    --plot "$dir/run.svg" > "$dir/log" 2>&1 || fail "the short run failed: $(cat "$dir/log")"
"$COMPARE" show "$dir/run.json" > "$dir/show.txt" ||
    fail "the JSON does not read back"
[ "$(grep -c threads: "$dir/show.txt")" -eq 4 ] ||
    fail "the JSON does not hold the 4 configurations"
[ "$(wc -l < "$dir/run.csv")" -eq 5 ] || fail "the CSV does not hold a header and 4 rows"
tail -n 1 "$dir/run.svg" | grep -q '</svg>' || fail "the SVG is not complete"
left=$(cd "$dir" && ls -A | grep -v -e '^run\.' -e '^log$' -e '^show\.txt$' || true)
[ -z "$left" ] || fail "a complete run left temporary files: $left"
echo "$name: a complete run wrote whole JSON, CSV and SVG files"
