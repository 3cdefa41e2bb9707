#!/bin/sh
# SPDX-License-Identifier: MIT
# throng.pc must describe the build it was installed from (make
# check-pkgconfig). A program linking libthrong.a statically takes its
# extra flags from Libs.private: the OpenMP build's archive calls into the
# OpenMP runtime, so -fopenmp must be there; the OPENMP=0 build's does not,
# and a -fopenmp there would drag the runtime into programs that never
# asked for it (or fail where the compiler has no OpenMP at all).
#
# For each of the two builds: install into a staging folder as a packager
# would (DESTDIR, PREFIX=/usr), read Libs.private from the installed
# throng.pc, and link examples/minimal.c against the static archive with
# exactly what `pkg-config --static` says, then run it.
#
# Before those, one build installed under several prefixes and folders in
# turn (see below).
#
# Environment (the Makefile sets it): MAKE, CC.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
CC=${CC:-cc}
WORK=$(pwd)/build/check-pkgconfig
rm -rf "$WORK"
mkdir -p "$WORK"

if ! command -v pkg-config >/dev/null 2>&1; then
    echo "check-pkgconfig: pkg-config is missing (Debian: pkg-config)" >&2
    exit 2
fi

status=0

# One build installed under one prefix, then another: each install's
# throng.pc names its own prefix, library and header folders (the build
# keeps one throng.pc, which must not outlive the options it was written
# for), and the shared library arrives under its real name with the
# soname and development links; uninstall leaves nothing behind.
# fail: say why and go on with the next check.
fail() {
    echo "check-pkgconfig: $*" >&2
    status=1
}
dest=$WORK/prefixes
for spec in "/opt/a" "/opt/b" "/opt/b /opt/b/lib64" "/opt/b /opt/b/lib64 /opt/b/inc"; do
    # shellcheck disable=SC2086 # the words are a prefix and folders
    set -- $spec
    prefix=$1 libdir=${2:-$1/lib} includedir=${3:-$1/include}
    if ! $MAKE --no-print-directory CC="$CC" install DESTDIR="$dest" \
        PREFIX="$prefix" ${2:+LIBDIR="$libdir"} ${3:+INCLUDEDIR="$includedir"} \
        > "$WORK/install-prefix.log" 2>&1; then
        tail -n 20 "$WORK/install-prefix.log" >&2
        echo "check-pkgconfig: make install PREFIX=$prefix failed" >&2
        exit 1
    fi
    pc=$dest$libdir/pkgconfig/throng.pc
    for want in "prefix=$prefix" "libdir=$libdir" "includedir=$includedir"; do
        grep -qx "$want" "$pc" || fail "install '$spec': $pc lacks '$want'" \
            "($(grep -E '^(prefix|libdir|includedir)=' "$pc" | tr '\n' ' '))"
    done
    [ -f "$dest$includedir/throng.h" ] || fail "install '$spec': no throng.h"
    real=$(cd "$dest$libdir" && ls libthrong.so.*.*.* 2>/dev/null)
    soname=$(readelf -d "$dest$libdir/$real" |
        sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
    if [ "$(readlink "$dest$libdir/$soname")" != "$real" ] ||
        [ "$(readlink "$dest$libdir/libthrong.so")" != "$soname" ]; then
        fail "install '$spec': $libdir/$soname and libthrong.so do not lead to $real"
    fi
done
for spec in "/opt/a" "/opt/b" "/opt/b /opt/b/lib64" "/opt/b /opt/b/lib64 /opt/b/inc"; do
    # shellcheck disable=SC2086
    set -- $spec
    $MAKE --no-print-directory CC="$CC" uninstall DESTDIR="$dest" \
        PREFIX="$1" ${2:+LIBDIR="$2"} ${3:+INCLUDEDIR="$3"} > /dev/null
done
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "make uninstall left $(echo "$left" | tr '\n' ' ')"
[ $status -ne 0 ] || echo "check-pkgconfig: four installs under other" \
    "prefixes and folders: each throng.pc names its own; uninstall removes all"

# The OPENMP=0 build is the scalar-only one without SQLite (SIMD=scalar
# SQLITE=0, the build CI tests that way): -lsqlite3 and -pthread must be in
# Libs.private exactly when the recorder was built with SQLite.
sqlite_here=0
if printf '#include <sqlite3.h>\nint main(void) { return sqlite3_libversion_number() > 0 ? 0 : 1; }\n' |
    $CC -x c - -o /dev/null -lsqlite3 >/dev/null 2>&1; then
    sqlite_here=1
fi
for openmp in 1 0; do
    stage=$WORK/stage-openmp$openmp
    sqlite=$openmp
    if ! $MAKE --no-print-directory OPENMP=$openmp $([ "$openmp" = 0 ] && echo SIMD=scalar) \
        $([ "$sqlite" = 0 ] && echo SQLITE=0) CC="$CC" install \
        DESTDIR="$stage" PREFIX=/usr > "$WORK/install-openmp$openmp.log" 2>&1; then
        tail -n 20 "$WORK/install-openmp$openmp.log" >&2
        echo "check-pkgconfig: OPENMP=$openmp: make install failed" >&2
        exit 1
    fi
    pc=$stage/usr/lib/pkgconfig/throng.pc
    private=$(sed -n 's/^Libs\.private: *//p' "$pc")
    case " $private " in
    *" -fopenmp "*) has_openmp=1 ;;
    *) has_openmp=0 ;;
    esac
    if [ "$has_openmp" != "$openmp" ]; then
        echo "check-pkgconfig: OPENMP=$openmp build installs a throng.pc" \
            "with 'Libs.private: $private'" >&2
        status=1
        continue
    fi
    case " $private " in
    *" -lsqlite3 "*) has_sqlite=1 ;;
    *) has_sqlite=0 ;;
    esac
    want_sqlite=$((sqlite * sqlite_here))
    if [ "$has_sqlite" != "$want_sqlite" ]; then
        echo "check-pkgconfig: OPENMP=$openmp build (SQLite $want_sqlite)" \
            "installs a throng.pc with 'Libs.private: $private'" >&2
        status=1
        continue
    fi
    # The archive by its path, so the shared library beside it cannot
    # stand in for it; every other flag from pkg-config.
    pc_env="PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig"
    cflags=$(env $pc_env pkg-config --cflags throng)
    libs=$(env $pc_env pkg-config --static --libs throng |
        sed "s|-lthrong|$stage/usr/lib/libthrong.a|")
    exe=$WORK/minimal-openmp$openmp
    # shellcheck disable=SC2086 # the flags are meant to split
    if ! $CC -std=c11 -o "$exe" examples/minimal.c $cflags $libs \
        > "$WORK/link-openmp$openmp.log" 2>&1; then
        cat "$WORK/link-openmp$openmp.log" >&2
        echo "check-pkgconfig: OPENMP=$openmp: a static link with" \
            "'$libs' failed" >&2
        status=1
        continue
    fi
    if ! "$exe" > "$exe.out"; then
        echo "check-pkgconfig: OPENMP=$openmp: the statically linked" \
            "example failed" >&2
        status=1
        continue
    fi
    echo "check-pkgconfig: OPENMP=$openmp (SQLite $want_sqlite): Libs.private:" \
        "$private; static link and run ok"
done
exit $status
