#!/bin/sh
# SPDX-License-Identifier: MIT
# The recorder's crash safety (make record-kill-check): a process records
# a churning crowd of 20,000 agents every step, printing each frame as it
# is committed; once a dozen are, it is killed with SIGKILL in the middle
# of its run (its writer thread is then almost always halfway through a
# frame's rows); the file it leaves must open, pass SQLite's integrity
# check and hold every frame reported committed, and every frame it holds
# whole, as the run had it (throng-record-kill check replays the run).
#
#   kill_check.sh PROGRAM WORK
set -eu
PROG=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
db=$WORK/killed.sqlite
out=$WORK/record.out
"$PROG" record "$db" > "$out" 2> "$WORK/record.err" &
pid=$!
last=
waited=0
# Up to a minute for twelve frames (about a second on an idle machine).
while [ "$waited" -lt 1200 ]; do
    last=$(sed -n 's/^committed //p' "$out" | tail -n 1)
    if [ -n "$last" ] && [ "$last" -ge 12 ]; then
        break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        cat "$WORK/record.err" >&2
        echo "record-kill-check: the recording process ended by itself" >&2
        exit 1
    fi
    sleep 0.05
    waited=$((waited + 1))
done
kill -KILL "$pid"
status=0
wait "$pid" || status=$?
if [ "$status" -ne 137 ]; then
    echo "record-kill-check: the recording process was not killed (exit $status)" >&2
    exit 1
fi
# The last frame it said was committed before it died.
last=$(sed -n 's/^committed //p' "$out" | tail -n 1)
if [ -z "$last" ]; then
    echo "record-kill-check: no frame was committed within a minute" >&2
    exit 1
fi
left=
[ -s "$db-journal" ] && left=" (it left its journal hot, $(wc -c < "$db-journal") bytes, for SQLite to play back)"
echo "record-kill-check: killed the recording process after frame $last was committed$left"
"$PROG" check "$db" "$last"
