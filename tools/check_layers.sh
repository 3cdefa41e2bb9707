#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's layers point one way: an object file of src/ may use the
# symbols of its own layer or a lower one, never a higher one, and no
# files call each other in a circle (within a layer, where a circle could
# still hide), and a header declares only functions its own file (or that
# file's vector twins) defines. The table below is the one place the layers are written;
# the README's layout section names them too.
#
#   tools/check_layers.sh OBJ...     check the objects of a build
#                                    (build/obj/src), exit 1 on a breach
#   tools/check_layers.sh --self-test
#                                    plants an upward call and a circle in
#                                    objects of its own and fails unless
#                                    both are found
#
# Every object named must be in the table, so a new file gets a layer
# when it is added. Uses nm (binutils) and tsort (coreutils).
set -eu
# join and sort must agree on the order.
export LC_ALL=C

# layer number, name, then the files (object names without .o).
LAYERS='
1 core        core handles simd parallel
2 storage     columns
3 spatial     grid grid_plan grid_query verlet verlet_frame obstacle_grid geo_near nav_solve nav_field
4 model       group_handle geometry schema group agent agent_state world objects_read objects_add nav_objects
5 steer       steer
6 behaviours  steer_agent steer_route steer_env steer_env_sse2 steer_env_avx2 steer_env_avx512 steer_env_neon steer_env_wasm behaviour
7 combine     combine
8 neighbours  steer_flock steer_cap steer_flock_sse2 steer_flock_avx2 steer_flock_avx512 steer_flock_neon steer_flock_wasm
9 integrate   integrate integrate_sse2 integrate_avx2 integrate_avx512 integrate_neon integrate_wasm orca2d orca3d orca_static orca_lanes_sse2 orca_lanes_avx2 orca_lanes_avx512 orca_lanes_neon orca_lanes_wasm orca_pick velocity contact
10 step       kernel_paths validate step
11 outside    snapshot_codec snapshot_write snapshot_read snapshot_restore recorder recorder_db recorder_pages recorder_wkt
'

NM=${NM:-nm}

layer_of() {
    printf '%s\n' "$LAYERS" | awk -v f="$1" \
        '{for (i = 3; i <= NF; i++) if ($i == f) {print $1; exit}}'
}

# check OBJ...: prints each breach, returns 1 when there is one. The
# objects are named, not found in a folder, so one left from a removed
# source file does not count.
check() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    bad=0
    : >"$work/defs"
    for o in "$@"; do
        f=$(basename "$o" .o)
        if [ -z "$(layer_of "$f")" ]; then
            echo "check-layers: $f.o is in no layer (tools/check_layers.sh)" >&2
            bad=1
        fi
        $NM --defined-only "$o" |
            awk -v f="$f" '$2 ~ /^[TDBRCVW]$/ {print $3, f}' >>"$work/defs"
    done
    sort -u -k1,1 "$work/defs" >"$work/defs.sorted"
    : >"$work/edges"
    for o in "$@"; do
        f=$(basename "$o" .o)
        $NM -u "$o" | awk '{print $NF}' | sort -u |
            join - "$work/defs.sorted" |
            awk -v f="$f" '$2 != f {print f, $2, $1}' >>"$work/edges"
    done
    while read -r from to sym; do
        lf=$(layer_of "$from")
        lt=$(layer_of "$to")
        if [ -n "$lf" ] && [ -n "$lt" ] && [ "$lt" -gt "$lf" ]; then
            echo "check-layers: $from.o (layer $lf) calls up into $to.o" \
                "(layer $lt): $sym" >&2
            bad=1
        fi
    done <"$work/edges"
    # A header declares only what its own file defines: a function declared
    # at the start of a line in X.h and defined in some object must be
    # defined in X.o or one of its vector twins, X_sse2.o ... X_neon.o
    # (headers of HEADERS, when set).
    for h in ${HEADERS:-}; do
        hb=$(basename "$h" .h)
        sed -n 's/^[A-Za-z_][A-Za-z_0-9 *]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1/p' "$h" |
            sort -u | join - "$work/defs.sorted" |
            awk -v h="$hb" '$2 != h && $2 !~ ("^" h "_(sse2|avx2|avx512|neon|wasm)$") {print $1, $2}' >"$work/elsewhere"
        while read -r sym def; do
            echo "check-layers: $hb.h declares $sym, which $def.o defines" >&2
            bad=1
        done <"$work/elsewhere"
    done
    # A circle among files: tsort names the files on it.
    if ! awk '{print $1, $2}' "$work/edges" | sort -u |
        tsort >/dev/null 2>"$work/loops"; then
        echo "check-layers: files call each other in a circle:" >&2
        grep -v 'input contains a loop' "$work/loops" |
            sed 's/^tsort: /  /' >&2
        bad=1
    fi
    if [ "$bad" = 0 ]; then
        echo "check-layers: $# objects, $(echo ${HEADERS:-} | wc -w) headers," \
            "$(awk '{print $1, $2}' "$work/edges" | sort -u | wc -l)" \
            "file-to-file uses, all down or across, no circle"
    fi
    rm -rf "$work"
    trap - EXIT
    return "$bad"
}

self_test() {
    CC=${CC:-cc}
    t=$(mktemp -d)
    # core calls up into step; agent and group call each other.
    printf 'int step_thing(void);\nint core_thing(void) { return step_thing(); }\n' >"$t/core.c"
    printf 'int core_thing(void);\nint step_thing(void) { return 1; }\n' >"$t/step.c"
    printf 'int group_thing(void);\nint agent_thing(void) { return group_thing(); }\n' >"$t/agent.c"
    printf 'int agent_thing(void);\nint group_thing(void) { return agent_thing(); }\n' >"$t/group.c"
    # and step.h declares what core.c defines.
    printf 'int core_thing(void);\n' >"$t/step.h"
    for f in core step agent group; do
        $CC -c -o "$t/$f.o" "$t/$f.c"
    done
    out=$(HEADERS="$t/step.h" check "$t"/*.o 2>&1) && status=0 || status=$?
    rm -rf "$t"
    if [ "$status" = 0 ] ||
        ! printf '%s\n' "$out" | grep -q 'core.o (layer 1) calls up into step.o' ||
        ! printf '%s\n' "$out" | grep -q 'circle' ||
        ! printf '%s\n' "$out" | grep -q 'step.h declares core_thing'; then
        echo "check-layers self-test: a planted breach went unreported:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
    echo "check-layers self-test: the planted upward call, circle and stray declaration are found"
}

case "${1:-}" in
--self-test) self_test ;;
'') echo "usage: $0 OBJ... | --self-test" >&2; exit 2 ;;
*) check "$@" ;;
esac
