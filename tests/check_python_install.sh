#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python package as a new user installs it (make python-install-test;
# README, "Installing from Python"):
#
# 1. a fresh virtual environment of $PYTHON that sees the system's
#    packages (Debian's NumPy, setuptools and wheel: no package index is
#    reached), and in it, from the top of the tree, exactly what the README
#    says: pip install --no-build-isolation .
# 2. the installed throng.py, and the library it loads with THRONG_LIBRARY
#    unset, are the environment's own (not python/, not build/), and that
#    library is this tree's build (the same build ID);
# 3. the Python tests (python/tests) against that copy, run from a folder
#    outside the tree with THRONG_TEST_INSTALLED=1: binding_path.py keeps
#    the source python/ off sys.path and refuses to run if `throng` would
#    still come from there;
# 4. pip wheel --no-build-isolation --no-deps builds the wheel, which holds
#    the two modules, the library under its soname, the licence and
#    metadata naming it (License: MIT), tagged py3-none-<platform>; the
#    source distribution holds what make needs to build the library, and
#    the licence, which its metadata names too;
# 5. pip uninstall takes every file of the package away again.
#
# Environment (the Makefile sets it): PYTHON, LIB (the build's
# libthrong.so.X.Y.Z), SCHEMA_LAYOUT (the schema-layout program, for
# test_schema's layout check). The work folder is a temporary one, outside
# the tree, removed at the end.
set -eu
cd "$(dirname "$0")/.."
REPO=$(pwd)
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/throng-python-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# pip must not try to reach an index, nor ask one for a newer pip, nor
# keep what it builds in the user's cache.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
unset THRONG_LIBRARY PYTHONPATH

say() { echo "python-install-test: $*"; }
die() {
    echo "python-install-test: $*" >&2
    exit 1
}
# run LOG COMMAND...: quiet, the log's tail when it fails.
run() {
    log=$WORK/$1
    shift
    if ! "$@" > "$log" 2>&1; then
        tail -n 30 "$log" >&2
        die "failed: $*"
    fi
}

venv=$WORK/venv
"$PYTHON" -m venv --system-site-packages "$venv" > "$WORK/venv.log" 2>&1 || {
    cat "$WORK/venv.log" >&2
    die "$PYTHON -m venv failed (Debian: python3-venv)"
}
py=$venv/bin/python
# setuptools makes wheels itself from 70.1 on, with the wheel package
# before (Debian 12: setuptools 66 and python3-wheel).
"$py" -c 'import setuptools
try:
    import setuptools.command.bdist_wheel
except ImportError:
    import wheel.bdist_wheel' 2>/dev/null ||
    die "$py cannot build wheels (Debian: python3-setuptools python3-wheel)"

run install.log "$py" -m pip install --no-build-isolation .
say "pip install --no-build-isolation . into a fresh venv ($(grep -o 'Successfully installed.*' "$WORK/install.log"))"

# 2. Where the installed module and its library are, asked from outside
# the tree.
cd "$WORK"
"$py" -c 'import throng; print(throng.__file__); print(throng.library_path)
print(throng.version())' > where.txt || die "the installed throng does not import"
module=$(sed -n 1p where.txt)
library=$(sed -n 2p where.txt)
vreal=$(cd "$venv" && pwd -P)
case "$(realpath "$module")" in
"$vreal"/*) ;;
*) die "throng imports from $module, not from the venv $venv" ;;
esac
case "$(realpath "$library")" in
"$vreal"/*/throng.libs/libthrong.so.*) ;;
*) die "the installed throng loads $library, not its own copy in the venv" ;;
esac
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
[ -n "$(build_id "$LIB")" ] && [ "$(build_id "$library")" = "$(build_id "$LIB")" ] ||
    die "$library is not the build $LIB (build IDs differ)"
say "throng $(sed -n 3p where.txt): $module, library $library (build ID of $LIB)"

# 3. The tests, against the installed copy.
if ! THRONG_TEST_INSTALLED=1 THRONG_SCHEMA_LAYOUT="$SCHEMA_LAYOUT" \
    "$py" -m unittest discover -s "$REPO/python/tests" > tests.log 2>&1; then
    tail -n 60 tests.log >&2
    die "the Python tests fail against the installed package"
fi
say "python/tests against the installed copy, from $WORK:" \
    "$(grep '^Ran ' tests.log), $(tail -n 1 tests.log)"

# 4. The wheel and the source distribution.
cd "$REPO"
run wheel.log "$py" -m pip wheel --no-build-isolation --no-deps -w "$WORK/dist" .
run sdist.log "$py" -c 'import sys
from setuptools import build_meta
print(build_meta.build_sdist(sys.argv[1]))' "$WORK/dist"
"$py" - "$WORK/dist" <<'EOF' || die "the wheel or the sdist lacks a part"
import glob, os, sys, tarfile, zipfile
dist = sys.argv[1]
wheels = glob.glob(os.path.join(dist, "throng-*.whl"))
assert len(wheels) == 1, wheels
wheel = wheels[0]
tag = os.path.basename(wheel)[:-4].split("-")[2:]
assert tag[:2] == ["py3", "none"] and tag[2].startswith("linux_"), tag
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    info = [n for n in names if n.endswith(".dist-info/METADATA")][0]
    meta = z.read(info).decode()
    wheel_file = z.read(info.replace("METADATA", "WHEEL")).decode()
for want in ("throng.py", "throng_schema.py"):
    assert want in names, (want, names)
libs = [n for n in names if n.startswith("throng.libs/")]
assert len(libs) == 1 and libs[0].startswith("throng.libs/libthrong.so."), libs
assert any(n.endswith(".dist-info/LICENSE") for n in names), names
assert "\nLicense: MIT\n" in meta and "\nLicense-File: LICENSE\n" in meta
assert "Root-Is-Purelib: false" in wheel_file, wheel_file
print("python-install-test: %s: %s" % (os.path.basename(wheel),
                                        ", ".join(names)))
sdists = glob.glob(os.path.join(dist, "throng-*.tar.gz"))
assert len(sdists) == 1, sdists
with tarfile.open(sdists[0]) as t:
    members = {m.split("/", 1)[1] for m in t.getnames() if "/" in m}
    top = t.getnames()[0].split("/")[0]
    pkg_info = t.extractfile(top + "/PKG-INFO").read().decode()
assert "\nLicense: MIT\n" in pkg_info and "\nLicense-File: LICENSE\n" in pkg_info
need = {"Makefile", "LICENSE", "include/throng.h", "src/world.c",
        "pyproject.toml", "setup.py", "python/throng.py",
        "python/throng_schema.py", "PKG-INFO"}
assert need <= members, need - members
print("python-install-test: %s: %d files, the library's sources with them"
      % (os.path.basename(sdists[0]), len(members)))
EOF

# 5. Uninstalling takes the library away with the modules.
run uninstall.log "$py" -m pip uninstall -y throng
left=$(cd "$(dirname "$module")" && ls -d throng.py throng_schema.py throng.libs throng-*.dist-info 2>/dev/null || true)
[ -z "$left" ] || die "pip uninstall left $left"
say "pip uninstall throng removes the modules and the library"
