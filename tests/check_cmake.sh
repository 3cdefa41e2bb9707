#!/bin/sh
# SPDX-License-Identifier: MIT
# The CMake package (make check-cmake): what `make install` puts in
# $(LIBDIR)/cmake/throng must let a CMake project find and link throng.
#
# 1. examples/cmake (find_package(throng 0.3 REQUIRED)) against a staged
#    install (DESTDIR, PREFIX=/usr): minimal through throng::throng and
#    minimal_static through throng::throng_static (the component
#    `static`, whose OpenMP runtime the link needs), built with -Werror
#    and run; the first must need the library by its soname and find it
#    in the staging folder, the second must not need it at all, and both
#    must end in the same state.
# 2. The version rule (cmake/throngConfigVersion.cmake.in), asked through
#    a project with no compiler: the versions it must take and those it
#    must refuse, computed from include/throng.h's version.
# 3. Relocation: installed with other LIBDIR and INCLUDEDIR, found where
#    staged, found again after the staged tree is moved, and through a
#    link to its library folder; each time the targets must name the
#    library and the header where they now are. A tree missing its
#    library is refused, and so is a component that does not exist.
#
# Environment (the Makefile sets it): MAKE, CC, CMAKE.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
CC=${CC:-cc}
CMAKE=${CMAKE:-cmake}
WORK=$(pwd)/build/check-cmake
rm -rf "$WORK"
mkdir -p "$WORK"

if ! command -v "$CMAKE" >/dev/null 2>&1; then
    echo "check-cmake: $CMAKE is missing (Debian: cmake)" >&2
    exit 2
fi

status=0
fail() {
    echo "check-cmake: $*" >&2
    status=1
}
# install DEST MAKE-ARGS...: make install into the staging folder DEST.
install_to() {
    dest=$1
    shift
    if ! $MAKE --no-print-directory CC="$CC" install DESTDIR="$dest" "$@" \
        > "$WORK/install.log" 2>&1; then
        tail -n 20 "$WORK/install.log" >&2
        echo "check-cmake: make install $* failed" >&2
        exit 1
    fi
}

part() { sed -n "s/^#define THRONG_VERSION_$1 \([0-9]*\)/\1/p" include/throng.h; }
major=$(part MAJOR)
minor=$(part MINOR)
patch=$(part PATCH)
version=$major.$minor.$patch

# 1. The example project, shared and static.
stage=$WORK/stage
install_to "$stage" PREFIX=/usr
ex=$WORK/example
if ! { "$CMAKE" -S examples/cmake -B "$ex" -DCMAKE_PREFIX_PATH="$stage/usr" \
    -DTHRONG_EXAMPLE_STATIC=ON -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" &&
    "$CMAKE" --build "$ex"; } > "$WORK/example.log" 2>&1; then
    tail -n 30 "$WORK/example.log" >&2
    echo "check-cmake: examples/cmake does not configure and build against" \
        "the staged install" >&2
    exit 1
fi
grep -q "throng $version from $stage/usr/lib/cmake/throng" "$WORK/example.log" ||
    fail "examples/cmake did not find throng $version in the staging folder"
for exe in minimal minimal_static; do
    if ! "$ex/$exe" > "$ex/$exe.out" 2>&1; then
        cat "$ex/$exe.out" >&2
        fail "examples/cmake: $exe fails"
    fi
done
[ "$(head -n 1 "$ex/minimal.out")" = "throng $version" ] ||
    fail "minimal says '$(head -n 1 "$ex/minimal.out")', not throng $version"
cmp -s "$ex/minimal.out" "$ex/minimal_static.out" ||
    fail "minimal and minimal_static end in different states"
soname=$(readelf -d "$stage/usr/lib/libthrong.so.$version" |
    sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
readelf -d "$ex/minimal" | grep -q "NEEDED.*\[$soname\]" ||
    fail "minimal does not need $soname"
loaded=$(ldd "$ex/minimal" | sed -n "s/.*$soname => \([^ ]*\).*/\1/p")
[ "$loaded" = "$stage/usr/lib/$soname" ] ||
    fail "minimal loads '$loaded', not the staged $stage/usr/lib/$soname"
if readelf -d "$ex/minimal_static" | grep -q "NEEDED.*libthrong"; then
    fail "minimal_static needs the shared library"
fi
[ $status -ne 0 ] || echo "check-cmake: examples/cmake against a staged" \
    "install: minimal ($soname from the stage) and minimal_static" \
    "(libthrong.a, OpenMP) built, ran, same state"

# probe NAME PREFIX-PATH-OR-DIR REQUEST...: find_package(throng REQUEST
# REQUIRED) in a project without a compiler; prints what the targets name
# (version|library|include folder) and returns cmake's status.
mkdir -p "$WORK/probe"
cat > "$WORK/probe/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(throng_probe NONE)
separate_arguments(request UNIX_COMMAND "${REQUEST}")
find_package(throng ${request} REQUIRED)
get_target_property(location throng::throng IMPORTED_LOCATION)
get_target_property(include throng::throng INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "probe:${throng_VERSION}|${location}|${include}")
EOF
probe() {
    name=$1 where=$2
    shift 2
    case "$where" in
    */cmake/throng) how=-Dthrong_DIR=$where ;;
    *) how=-DCMAKE_PREFIX_PATH=$where ;;
    esac
    "$CMAKE" -S "$WORK/probe" -B "$WORK/probe-$name" "$how" \
        -DREQUEST="$*" > "$WORK/probe-$name.log" 2>&1 || return 1
    sed -n 's/^-- probe://p' "$WORK/probe-$name.log"
}

# said LOG TEXT: cmake's log LOG says TEXT (its messages are wrapped).
said() { tr -s ' \n' '  ' < "$WORK/$1.log" | grep -qF "$2"; }

# 2. The version rule.
n=0
take() {
    n=$((n + 1))
    probe "take$n" "$stage/usr" "$@" > /dev/null ||
        fail "find_package(throng $*) refuses $version"
}
refuse() {
    n=$((n + 1))
    if probe "refuse$n" "$stage/usr" "$@" > /dev/null; then
        fail "find_package(throng $*) takes $version"
    elif ! said "probe-refuse$n" "throngConfig.cmake, version: $version"; then
        tail -n 20 "$WORK/probe-refuse$n.log" >&2
        fail "find_package(throng $*) fails, but not for the version"
    fi
}
take ""
take "$major.$minor"
take "$version EXACT"
take "$major.$minor EXACT"
take "$major.$minor...<$major.$((minor + 1))"
refuse "$major.$((minor + 1))"
refuse "$((major + 1)).0"
refuse "$major.$minor.$((patch + 1)) EXACT"
refuse "$major.$((minor + 1))...<$major.$((minor + 2))"
if [ "$major" = 0 ] && [ "$minor" -gt 3 ]; then
    # While 0.x: an older minor is taken, as examples/cmake asks.
    take "0.3"
    refuse "0.3 EXACT"
    refuse "0.3...<$major.$minor"
fi
[ $status -ne 0 ] || echo "check-cmake: $n version requests answered" \
    "as the rule says (any $major.x at least the one asked; EXACT; ranges)"

# 3. Relocation. (CMake on Debian does not search lib64 folders by
# itself: these probes name the package's folder, throng_DIR.)
other=$WORK/other
install_to "$other" PREFIX=/opt/t LIBDIR=/opt/t/lib64 INCLUDEDIR=/opt/t/inc
mv "$other" "$WORK/moved"
ln -s "$WORK/moved/opt/t/lib64" "$WORK/link"
for spec in "staged:$stage/usr:$stage/usr/lib:$stage/usr/include" \
    "moved:$WORK/moved/opt/t/lib64/cmake/throng:$WORK/moved/opt/t/lib64:$WORK/moved/opt/t/inc" \
    "link:$WORK/link/cmake/throng:$WORK/moved/opt/t/lib64:$WORK/moved/opt/t/inc"; do
    IFS=: read -r name where libdir includedir <<EOF
$spec
EOF
    want="$version|$libdir/libthrong.so.$version|$includedir"
    got=$(probe "$name" "$where" "$major.$minor") ||
        { tail -n 20 "$WORK/probe-$name.log" >&2; got="(not found)"; }
    [ "$got" = "$want" ] || fail "$name install: targets name '$got', not '$want'"
done
if probe missing-component "$stage/usr" "$major.$minor COMPONENTS nosuch" > /dev/null; then
    fail "find_package(throng COMPONENTS nosuch) succeeds"
fi
rm "$WORK/moved/opt/t/lib64/libthrong.so.$version"
if probe incomplete "$WORK/moved/opt/t/lib64/cmake/throng" "$major.$minor" > /dev/null; then
    fail "a tree without libthrong.so.$version is found"
elif ! said probe-incomplete "libthrong.so.$version, which does not exist"; then
    tail -n 20 "$WORK/probe-incomplete.log" >&2
    fail "a tree without its library is refused, but not for that"
fi
[ $status -ne 0 ] || echo "check-cmake: relocatable (staged, moved, through a" \
    "link); an incomplete tree and an unknown component refused"
exit $status
