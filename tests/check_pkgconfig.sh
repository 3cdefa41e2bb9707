#!/bin/sh
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
for openmp in 1 0; do
    stage=$WORK/stage-openmp$openmp
    if ! $MAKE --no-print-directory OPENMP=$openmp CC="$CC" install \
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
    echo "check-pkgconfig: OPENMP=$openmp: Libs.private: $private;" \
        "static link and run ok"
done
exit $status
