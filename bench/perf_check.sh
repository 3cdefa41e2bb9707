#!/bin/sh
# SPDX-License-Identifier: MIT
# The instruction-count gate (make perf-check) and its counts
# (make perf-update).
#
#   perf_check.sh check    count each configuration of $PERF_COUNTS again
#                          and fail when one grew by more than 2%
#   perf_check.sh update   count the configurations below and rewrite
#                          $PERF_COUNTS
#
# Timings on a shared machine wander by more than the regressions worth
# catching; the instructions a fixed scene executes do not. callgrind
# counts them (Ir) only inside throng_world_step and what it calls
# (--toggle-collect), so process start-up, world building and the bench's
# own checks are left out. One thread, since a team's spinning and
# scheduling are not the work being measured, and a forced SIMD path:
# valgrind cannot run AVX-512, and a path chosen from the CPU would make
# the counts depend on the machine. AVX2 is the widest path valgrind runs;
# scalar is the reference path every build has. The counts belong to one
# build (the default `make`) and one compiler: a different compiler moves
# them, which the check reports before the verdicts.
#
# Environment (the Makefile sets it): BENCH, the bench program; PERF_COUNTS,
# the committed counts; PERF_WORK, a scratch folder; PERF_LIMIT, the
# growth that fails, in percent (default 2).
set -eu

# scenario agents steps simd: small enough that all of them take well
# under a minute under valgrind, large enough that every kernel runs on
# full vectors and every grid cell kind occurs.
PERF_CONFIGS="
flock2d 2000 20 avx2
flock3d 1000 20 avx2
every2d 1000 20 avx2
every3d 1000 20 avx2
crossing2d_steer 1000 20 avx2
crossing2d 1000 20 avx2
orca_dense2d 1000 20 avx2
circle2d 1000 20 avx2
exits2d 500 20 avx2
flock2d 2000 20 scalar
flock3d 1000 20 scalar
"

mode=${1:-}
case "$mode" in
check | update) ;;
*) echo "usage: perf_check.sh check|update" >&2; exit 2 ;;
esac
name="perf-$mode"
BENCH=${BENCH:-build/throng-bench}
PERF_COUNTS=${PERF_COUNTS:-bench/baselines/perf-counts.txt}
PERF_WORK=${PERF_WORK:-build/perf-check}
PERF_LIMIT=${PERF_LIMIT:-2}

if ! command -v valgrind >/dev/null 2>&1; then
    echo "$name: valgrind is missing (Debian: apt-get install valgrind)" >&2
    exit 2
fi
rm -rf "$PERF_WORK"
mkdir -p "$PERF_WORK"

compiler=$("$BENCH" --scenario flock2d --agents 100 --steps 1 --warmup 0 \
    --threads 1 --quiet --json - 2>/dev/null |
    sed -n 's/^ *"compiler": "\(.*\)",*$/\1/p' | head -n 1)
compiler=${compiler:-unknown}

# Prints the instruction count of one configuration.
count() {
    out=$PERF_WORK/$1-$2-$3-$4
    rc=0
    THRONG_SIMD=$4 valgrind --tool=callgrind \
        --toggle-collect=throng_world_step --callgrind-out-file="$out.cg" \
        "$BENCH" --quiet --scenario "$1" --agents "$2" --threads 1 \
        --steps "$3" --warmup 0 --repeats 1 --json "$out.json" \
        > "$out.log" 2>&1 || rc=$?
    # throng-bench exits with 3 when THRONG_SIMD names a path this CPU (as
    # valgrind presents it) lacks, e.g. no AVX2: a skip, not a failure.
    if [ "$rc" -eq 3 ]; then
        echo "$name: $1 cannot run the $4 path here" >&2
        return 3
    fi
    if [ "$rc" -ne 0 ]; then
        echo "$name: valgrind or throng-bench failed on $1 $2 $3 $4:" >&2
        tail -n 20 "$out.log" >&2
        return 1
    fi
    # Whatever ran must be the path asked for, or the counts would be
    # another path's.
    if ! grep -q "^ *\"simd\": \"$4\"" "$out.json"; then
        echo "$name: $1 did not run the $4 path here" >&2
        return 3
    fi
    instructions=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out.cg")
    if [ -z "$instructions" ] || [ "$instructions" -eq 0 ]; then
        echo "$name: no instructions counted for $1 $2 $3 $4" \
            "(is throng_world_step in the program?)" >&2
        return 1
    fi
    echo "$instructions"
}

if [ "$mode" = update ]; then
    {
        echo "# Instructions executed inside throng_world_step (callgrind Ir),"
        echo "# one thread, forced SIMD path; written by make perf-update,"
        echo "# checked by make perf-check (fails on growth above 2%)."
        echo "# compiler: $compiler"
        echo "# scenario agents steps simd instructions"
    } > "$PERF_WORK/counts.txt"
    echo "$PERF_CONFIGS" | while read -r scenario agents steps simd; do
        [ -n "$scenario" ] || continue
        n=$(count "$scenario" "$agents" "$steps" "$simd")
        printf '%-11s %6s %3s %-6s %12s\n' "$scenario" "$agents" "$steps" \
            "$simd" "$n" | tee -a "$PERF_WORK/counts.txt"
    done
    mkdir -p "$(dirname "$PERF_COUNTS")"
    cp "$PERF_WORK/counts.txt" "$PERF_COUNTS"
    echo "$name: wrote $PERF_COUNTS"
    exit 0
fi

if [ ! -f "$PERF_COUNTS" ]; then
    echo "$name: no counts in $PERF_COUNTS; make perf-update writes them" >&2
    exit 2
fi
committed=$(sed -n 's/^# compiler: //p' "$PERF_COUNTS")
if [ -n "$committed" ] && [ "$committed" != "$compiler" ]; then
    echo "note: the counts were made with $committed, this build with" \
        "$compiler; expect differences"
fi
printf '%-30s %14s %14s %8s  %s\n' configuration committed now change verdict
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PERF_COUNTS" > "$PERF_WORK/committed.txt"
: > "$PERF_WORK/verdicts"
while read -r scenario agents steps simd expected; do
    label="$scenario/$agents/$steps/$simd"
    status=0
    n=$(count "$scenario" "$agents" "$steps" "$simd" < /dev/null) || status=$?
    if [ "$status" -eq 3 ]; then
        printf '%-30s %14s %14s %8s  %s\n' "$label" "$expected" - - \
            "skipped: no $simd path on this machine" | tee -a "$PERF_WORK/verdicts"
    elif [ "$status" -eq 0 ]; then
        # Integer arithmetic in awk's doubles is exact far beyond these.
        awk -v label="$label" -v was="$expected" -v now="$n" \
            -v limit="$PERF_LIMIT" 'BEGIN {
            change = 100 * (now - was) / was
            verdict = change > limit ? "FAILED: grew" \
                : change < -limit ? "ok, shrank: make perf-update" : "ok"
            printf "%-30s %14d %14d %+7.2f%%  %s\n", label, was, now, change,
                verdict
        }' | tee -a "$PERF_WORK/verdicts"
    else
        printf '%-30s %14s %14s %8s  %s\n' "$label" "$expected" - - \
            "FAILED: did not run" | tee -a "$PERF_WORK/verdicts"
    fi
done < "$PERF_WORK/committed.txt"
failed=$(grep -c 'FAILED' "$PERF_WORK/verdicts" || true)
skipped=$(grep -c 'skipped' "$PERF_WORK/verdicts" || true)
passed=$(($(wc -l < "$PERF_WORK/verdicts") - failed - skipped))
echo "limit +$PERF_LIMIT% instructions"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
