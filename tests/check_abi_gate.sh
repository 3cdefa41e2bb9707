#!/bin/sh
# SPDX-License-Identifier: MIT
# A test of the ABI gate itself (make check-abi-gate): a gate that never
# fails proves nothing, so this plants ABI changes in a copy of the tree
# and checks that tests/check_abi.sh refuses each until the version moves.
#
# The record it compares with is made here from LIB, the default build
# (optimised, with debug information), under the tree's own version, so
# the test holds whatever the version and the committed record are. The
# variants are built at -O0 (DEBUG=1) and with the scalar kernels alone
# (SIMD=scalar: the vector kernels are hidden, none is in the ABI, and
# each build compiles them anew, as each planted header change rebuilds
# everything), which is quick, into a copy of src/, include/ and the
# Makefile:
#
#   1. the tree as it is            passes (the optimisation level, the
#                                   kernels built and a second build
#                                   change nothing)
#   2. a function added             fails, naming it
#   3. an enum value added          fails, naming it
#   4. a field added to a struct    fails, naming it
#   5. 4 with the version moved     passes
#   6. 4's library under 5's header fails: its soname is the old one
#
# Environment (the Makefile sets it): MAKE, CC, LIB.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
CC=${CC:-cc}
: "${LIB:?}"
WORK=$(pwd)/build/check-abi-gate
TREE=$WORK/tree
GATE=$(pwd)/tests/check_abi.sh
rm -rf "$WORK"
mkdir -p "$TREE" "$WORK/abi"
cp -R Makefile src include "$TREE/"
H=$TREE/include/throng.h

part() {
    sed -n "s/^#define THRONG_VERSION_$1 \\([0-9]*\\).*/\\1/p" "$H"
}
variant_lib() {
    echo "$TREE/build/libthrong.so.$(part MAJOR).$(part MINOR).$(part PATCH)"
}
build() {
    if ! $MAKE --no-print-directory -C "$TREE" CC="$CC" BUILD=build DEBUG=1 SIMD=scalar \
        "build/$(basename "$(variant_lib)")" > "$WORK/build.log" 2>&1; then
        tail -n 20 "$WORK/build.log" >&2
        echo "check-abi-gate: the variant library did not build" >&2
        exit 1
    fi
    cat "$WORK/build.log" >> "$WORK/builds.log"
}
# gate NAME EXPECT [LIB [HEADER]]: run the gate, expect pass or fail.
failed=0
gate() {
    name=$1 expect=$2
    rc=0
    LIB=${3:-$(variant_lib)} HEADER=${4:-$H} ABI_DIR=$WORK/abi \
        ABI_WORK=$WORK/work sh "$GATE" check > "$WORK/$name.log" 2>&1 || rc=$?
    case $expect.$rc in
    pass.0) echo "check-abi-gate: $name: the gate passes, as it must" ;;
    fail.1) echo "check-abi-gate: $name: the gate fails, as it must" ;;
    *)
        sed 's/^/  /' "$WORK/$name.log" >&2
        echo "check-abi-gate: $name: expected the gate to $expect," \
            "it exited $rc" >&2
        failed=1
        ;;
    esac
}
# names NAME WORD...: the failing gate's report names each planted thing.
names() {
    name=$1
    shift
    for word in "$@"; do
        if ! grep -q "$word" "$WORK/$name.log"; then
            echo "check-abi-gate: $name: the report does not name $word" >&2
            failed=1
        fi
    done
}

LIB=$LIB HEADER=include/throng.h ABI_DIR=$WORK/abi ABI_WORK=$WORK/work \
    sh "$GATE" baseline > "$WORK/baseline.log"

build
gate unchanged pass

# A new exported function: only its file compiles, the rest is relinked.
cat > "$TREE/src/abi_gate_probe.c" << 'EOF'
int abi_gate_probe(int x);
__attribute__((visibility("default"))) int abi_gate_probe(int x)
{
    return x + 1;
}
EOF
build
gate function fail
names function abi_gate_probe
rm -f "$TREE/src/abi_gate_probe.c" "$TREE"/build/obj/src/abi_gate_probe.*

# A new status code, the last in the enum.
cp "$H" "$WORK/throng.h.orig"
sed -i 's/^} throng_status;/    THRONG_ERR_ABI_GATE_PROBE = 1000,\n&/' "$H"
grep -q THRONG_ERR_ABI_GATE_PROBE "$H" ||
    { echo "check-abi-gate: cannot plant an enum value" >&2; exit 1; }
build
gate enum fail
names enum THRONG_ERR_ABI_GATE_PROBE

# A field at the end of throng_world_def: the size of a struct that
# programs allocate themselves changes.
cp "$WORK/throng.h.orig" "$H"
sed -i 's/^} throng_world_def;/    float abi_gate_probe;\n&/' "$H"
grep -q abi_gate_probe "$H" ||
    { echo "check-abi-gate: cannot plant a struct field" >&2; exit 1; }
build
gate field fail
names field abi_gate_probe throng_world_def
old_lib=$(variant_lib)

# The same change with the version moved as the policy asks.
major=$(part MAJOR) minor=$(part MINOR)
if [ "$major" = 0 ]; then
    sed -i "s/^#define THRONG_VERSION_MINOR .*/#define THRONG_VERSION_MINOR $((minor + 1))/" "$H"
else
    sed -i "s/^#define THRONG_VERSION_MAJOR .*/#define THRONG_VERSION_MAJOR $((major + 1))/;
            s/^#define THRONG_VERSION_MINOR .*/#define THRONG_VERSION_MINOR 0/" "$H"
fi
sed -i "s/^#define THRONG_VERSION_PATCH .*/#define THRONG_VERSION_PATCH 0/" "$H"
build
gate field-bumped pass
gate old-soname fail "$old_lib" "$H"
names old-soname soname

if [ $failed -ne 0 ]; then
    echo "check-abi-gate: FAILED (logs in $WORK)" >&2
    exit 1
fi
echo "check-abi-gate: the gate refuses every planted change until the" \
    "version moves, and a library whose soname lags its version"
