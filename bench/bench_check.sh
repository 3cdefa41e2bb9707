#!/bin/sh
# SPDX-License-Identifier: MIT
# The timing regression gate (make bench-check) and its baseline
# (make bench-baseline).
#
#   bench_check.sh check      rerun the configurations of this machine's
#                             baseline and compare (throng-compare check)
#   bench_check.sh baseline   run the configurations of $BENCH_CONFIGS and
#                             write bench/baselines/<machine>.json
#
# Environment (the Makefile sets it): BENCH and COMPARE, the two programs;
# BENCH_MACHINE, to override the machine name; BENCH_REPEATS, samples per
# configuration (at least 5: with fewer the rank test can hardly fire);
# BENCH_CONFIGS, the configuration list; BENCH_WORK, a scratch folder;
# BENCH_SPLIT, how samples are taken:
#
#   processes (default)  one process per sample, each running every
#                        configuration's repeat in turn (round robin);
#   repeats              one process per configuration with --repeats N,
#                        the samples read from its "repeat_ms".
#
# Processes are the default because on a shared VM a whole process can
# land in a slower mode (the README's 100k, 2-thread flock ranges from
# 1.66 to 2.05 ms between processes), which repeats within one process never
# see: a baseline taken in a fast process would then fail every check that
# lands in a slow one. One sample per process puts that variation into
# both sides' spread, and the round robin spreads a passing burst of load
# over all configurations instead of one. Both cost the same time, as each
# repeat builds a fresh world either way.
set -eu

mode=${1:-}
case "$mode" in
check | baseline) ;;
*) echo "usage: bench_check.sh check|baseline" >&2; exit 2 ;;
esac

BENCH=${BENCH:-build/throng-bench}
COMPARE=${COMPARE:-build/throng-compare}
BENCH_REPEATS=${BENCH_REPEATS:-7}
BENCH_CONFIGS=${BENCH_CONFIGS:-bench/baselines/bench-configs.txt}
BENCH_WORK=${BENCH_WORK:-build/bench-check}
BENCH_SPLIT=${BENCH_SPLIT:-processes}
name="bench-$mode"

case "$BENCH_REPEATS" in
'' | *[!0-9]*) echo "$name: BENCH_REPEATS must be a number" >&2; exit 2 ;;
esac
if [ "$BENCH_REPEATS" -lt 5 ]; then
    echo "$name: BENCH_REPEATS=$BENCH_REPEATS: at least 5 are needed" >&2
    exit 2
fi
case "$BENCH_SPLIT" in
processes | repeats) ;;
*) echo "$name: BENCH_SPLIT must be processes or repeats" >&2; exit 2 ;;
esac

# The bench names the machine (BENCH_MACHINE overrides it), so results and
# baselines are filed under the same name.
machine=$(BENCH_MACHINE="${BENCH_MACHINE:-}" "$BENCH" --machine)
baseline=bench/baselines/$machine.json

rm -rf "$BENCH_WORK"
mkdir -p "$BENCH_WORK/runs"
configs=$BENCH_WORK/configs.txt
if [ "$mode" = check ]; then
    if [ ! -f "$baseline" ]; then
        echo "$name: no baseline for machine '$machine' ($baseline);" \
            "make bench-baseline writes one" >&2
        exit 2
    fi
    "$COMPARE" configs "$baseline" > "$configs"
else
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$BENCH_CONFIGS" > "$configs"
fi
count=$(wc -l < "$configs")
if [ "$count" -eq 0 ]; then
    echo "$name: no configurations to run" >&2
    exit 2
fi

# One configuration, $repeats repeats, into $out; the table and any
# progress go to a log that is shown only when the bench fails.
run() {
    if ! "$BENCH" --quiet --scenario "$1" --agents "$2" --threads "$3" \
        --steps "$4" --warmup "$5" --repeats "$repeats" --json "$out" \
        > "$out.log" 2>&1; then
        echo "$name: throng-bench failed on $1 $2 agents, $3 threads:" >&2
        cat "$out.log" >&2
        exit 1
    fi
}

# Other work on the machine slows every run (on 2 CPUs, 2-thread runs most
# of all), and no statistics can tell that from a regression: count the
# CPU time (and a VM's stolen time) the machine spent beyond our own runs,
# and say when it is more than a tenth of ours.
cpu_busy() { # user nice system irq softirq steal, in 1/100 s
    awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat 2>/dev/null || echo 0
}
busy_before=$(cpu_busy)
warn_load() {
    busy_after=$(cpu_busy)
    # times: the shell's, then its children's user and system time (from
    # this shell itself: a $(...) subshell has no children of its own).
    times > "$BENCH_WORK/times.txt"
    ours=$(tail -n 1 "$BENCH_WORK/times.txt" | sed 's/[ms]/ /g' |
        awk '{ print 100 * ($1 * 60 + $2 + $3 * 60 + $4) }')
    awk -v before="$busy_before" -v after="$busy_after" -v ours="$ours" \
        'BEGIN { other = after - before - ours
                 if (other > 0.1 * ours)
                     printf "note: other work used %.1f CPU-seconds beside " \
                         "the runs'"'"' %.1f: the timings are skewed\n",
                         other / 100, ours / 100 }'
}

echo "$name: machine $machine, $count configurations x $BENCH_REPEATS" \
    "samples ($BENCH_SPLIT)"
if [ "$BENCH_SPLIT" = processes ]; then
    repeats=1
    sample=1
    while [ "$sample" -le "$BENCH_REPEATS" ]; do
        printf '%s: sample %d of %d\n' "$name" "$sample" "$BENCH_REPEATS"
        index=0
        while read -r scenario agents threads steps warmup; do
            index=$((index + 1))
            out=$BENCH_WORK/runs/$(printf s%03d-c%03d "$sample" "$index").json
            run "$scenario" "$agents" "$threads" "$steps" "$warmup" < /dev/null
        done < "$configs"
        sample=$((sample + 1))
    done
else
    repeats=$BENCH_REPEATS
    index=0
    while read -r scenario agents threads steps warmup; do
        index=$((index + 1))
        printf '%s: configuration %d of %d\n' "$name" "$index" "$count"
        out=$BENCH_WORK/runs/$(printf c%03d "$index").json
        run "$scenario" "$agents" "$threads" "$steps" "$warmup" < /dev/null
        if ! grep -q '"repeat_ms"' "$out"; then
            echo "$name: this throng-bench writes no repeat_ms;" \
                "use BENCH_SPLIT=processes" >&2
            exit 2
        fi
    done < "$configs"
fi

if [ "$mode" = baseline ]; then
    mkdir -p bench/baselines
    "$COMPARE" merge --machine "$machine" -o "$baseline" "$BENCH_WORK"/runs/*.json
    "$COMPARE" show "$baseline"
    warn_load
    echo "$name: wrote $baseline"
else
    "$COMPARE" merge --machine "$machine" -o "$BENCH_WORK/now.json" \
        "$BENCH_WORK"/runs/*.json
    warn_load
    "$COMPARE" check "$baseline" "$BENCH_WORK/now.json"
fi
