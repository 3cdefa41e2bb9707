#!/bin/sh
# SPDX-License-Identifier: MIT
# The ABI gate (make check-abi, make abi-baseline; README, "Versions and
# ABI"). While the major version is 0, every change to the ABI (a function
# added, removed or changed, a struct's layout, an enum's values) moves
# the minor version; from 1.0 on, an incompatible change moves the major
# and a compatible one (an addition) at least the minor. The soname names
# the versions that share one ABI: libthrong.so.0.MINOR, then
# libthrong.so.MAJOR.
#
#   check_abi.sh check     compare LIB with the newest record in ABI_DIR;
#                          fail when the ABI changed and the version in
#                          HEADER did not move as the policy asks, or when
#                          LIB's soname is not the one HEADER's version
#                          calls for
#   check_abi.sh baseline  record LIB's ABI as ABI_DIR/libthrong-V.abi (V
#                          from HEADER) and remove older records
#
# Environment (the Makefile sets it): LIB, the shared library built with
# debug information; HEADER, its throng.h; ABI_DIR; ABI_WORK, a scratch
# folder. Exit status: 0 pass, 1 the gate fails, 2 a tool is missing or
# the inputs are unusable.
set -eu
mode=${1:-check}
: "${LIB:?}" "${HEADER:?}" "${ABI_DIR:?}" "${ABI_WORK:?}"

for tool in abidw abidiff readelf; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "check-abi: $tool is missing (Debian: abigail-tools, binutils)" >&2
        exit 2
    fi
done

# One number per version, so versions compare as integers.
version_key() {
    echo "$1" | awk -F. '{ printf "%d\n", ($1 * 1000 + $2) * 1000 + $3 }'
}
field() {
    echo "$1" | cut -d. -f"$2"
}

part() {
    sed -n "s/^#define THRONG_VERSION_$1 \\([0-9]*\\).*/\\1/p" "$HEADER"
}
version="$(part MAJOR).$(part MINOR).$(part PATCH)"
case $version in
[0-9]*.[0-9]*.[0-9]*) ;;
*)
    echo "check-abi: no THRONG_VERSION_MAJOR/MINOR/PATCH in $HEADER" >&2
    exit 2
    ;;
esac
major=$(field "$version" 1)
minor=$(field "$version" 2)
if [ "$major" = 0 ]; then
    want_soname=libthrong.so.0.$minor
else
    want_soname=libthrong.so.$major
fi

if [ ! -f "$LIB" ]; then
    echo "check-abi: $LIB is missing" >&2
    exit 2
fi
soname=$(readelf -d "$LIB" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" != "$want_soname" ]; then
    echo "check-abi: $LIB has soname '$soname'; version $version calls" \
        "for $want_soname" >&2
    exit 1
fi

# The record holds the public ABI only: the functions exported from the
# library and the types they reach, as the public headers define them (the
# world stays opaque), without source locations, paths or DT_NEEDED, so
# neither a moved line nor a build without OpenMP counts as a change.
# --exported-interfaces-only is not an optimisation: without it abidw 2.2
# ties no symbol to the functions defined in src/world.c (they were seen
# declared in an earlier file), and abidiff then compares nothing of them;
# so every exported function must come out tied to its symbol.
headers=$(dirname "$HEADER")
dump() {
    abidw --exported-interfaces-only --no-corpus-path --no-comp-dir-path \
        --no-show-locs --no-elf-needed --headers-dir "$headers" \
        --drop-private-types --out-file "$2" "$1"
    symbols=$(grep -c "<elf-symbol .*type='func-type'" "$2" || true)
    tied=$(grep -o "elf-symbol-id='[^']*'" "$2" | sort -u | wc -l)
    if [ "$symbols" -eq 0 ] || [ "$tied" -ne "$symbols" ]; then
        echo "check-abi: abidw tied $tied of the $symbols functions exported" \
            "from $1 to their declarations; the comparison would miss the" \
            "others" >&2
        exit 2
    fi
}

mkdir -p "$ABI_WORK"
if [ "$mode" = baseline ]; then
    mkdir -p "$ABI_DIR"
    out=$ABI_DIR/libthrong-$version.abi
    dump "$LIB" "$out.tmp"
    mv "$out.tmp" "$out"
    for old in "$ABI_DIR"/libthrong-*.abi; do
        [ "$old" = "$out" ] || { rm -f "$old"; echo "abi-baseline: removed $old"; }
    done
    echo "abi-baseline: $out records the ABI of $version ($soname," \
        "$symbols functions)"
    exit 0
fi
if [ "$mode" != check ]; then
    echo "check-abi: unknown mode '$mode' (check or baseline)" >&2
    exit 2
fi

# The newest record is the last release.
base_file=$(find "$ABI_DIR" -maxdepth 1 -name 'libthrong-*.abi' 2>/dev/null |
    sort -V | tail -n 1)
if [ -z "$base_file" ]; then
    echo "check-abi: no record in $ABI_DIR/ (make abi-baseline at a release)" >&2
    exit 2
fi
base=$(basename "$base_file" .abi | sed 's/^libthrong-//')
base_major=$(field "$base" 1)
base_minor=$(field "$base" 2)
if [ "$(version_key "$version")" -lt "$(version_key "$base")" ]; then
    echo "check-abi: version $version is older than the recorded release $base" >&2
    exit 1
fi

dump "$LIB" "$ABI_WORK/current.abi"
report=$ABI_WORK/abidiff.txt
# --harmless: an added enum value counts too (abidiff files it under
# harmless changes by default, but a program built against the new value
# passes it to a library that refuses it).
rc=0
abidiff --harmless "$base_file" "$ABI_WORK/current.abi" > "$report" 2>&1 || rc=$?
if [ $((rc & 3)) -ne 0 ]; then
    cat "$report" >&2
    echo "check-abi: abidiff could not compare (status $rc)" >&2
    exit 2
fi
if [ "$rc" -eq 0 ]; then
    echo "check-abi: the ABI of $version ($soname) is that of $base"
    exit 0
fi

# The least version the change calls for. Only additions (functions or
# variables added, nothing removed or changed) are compatible: abidiff
# sets its "incompatible" bit for removals alone, while a struct that
# grows or an enum value added breaks programs just as well.
if [ $((rc & 8)) -eq 0 ] && ! grep -E '^(Functions|Variables) changes summary' \
    "$report" | grep -qvE ' 0 Removed,.* 0 Changed'; then
    kind=compatible
else
    kind=incompatible
fi
if [ "$base_major" = 0 ]; then
    need=0.$((base_minor + 1)).0
elif [ $kind = incompatible ]; then
    need=$((base_major + 1)).0.0
else
    need=$base_major.$((base_minor + 1)).0
fi
summary=$(grep -E '^(Functions|Variables) changes summary' "$report" |
    sed 's/^/  /')
if [ "$(version_key "$version")" -lt "$(version_key "$need")" ]; then
    sed -n 's/^/  /; 1,60p' "$report" >&2
    [ "$(wc -l < "$report")" -le 60 ] || echo "  ... (all of it in $report)" >&2
    echo "check-abi: the ABI changed since $base ($kind change, above) but" \
        "the version is $version: set THRONG_VERSION to $need or later in" \
        "$HEADER, and say what changed in CHANGELOG.md" >&2
    exit 1
fi
echo "check-abi: the ABI changed since $base ($kind change); version" \
    "$version ($soname) moved past it"
echo "$summary"
