# SPDX-License-Identifier: MIT
"""The build step of the Python package (pyproject.toml holds the rest).

The binding is two plain modules, python/throng.py and
python/throng_schema.py; what setuptools cannot do alone is the library
they load. build_py runs make on this tree for the shared library (make
rebuilds nothing when `make` already built it) and copies it into the
package as throng.libs/libthrong.so.0.MINOR (its soname), beside
throng.py, which looks there first after THRONG_LIBRARY. Make variables in the environment
(OPENMP=0, CC=clang, SIMD=scalar) choose the build as they do for make
itself; THRONG_MAKE_JOBS sets make's -j (default: the CPU count).

The wheel holds native code: it installs into platlib and is tagged
py3-none-<platform> (any Python 3, no Python ABI, this machine's
platform), not as a pure-Python wheel. setuptools' own build files go
to build/python/, beside the library's build, never into python/.
"""

import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 carries bdist_wheel itself
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # before that, the wheel package (Debian: python3-wheel)
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        raise ImportError(
            "throng: building the package needs the wheel package beside "
            "setuptools older than 70.1 (Debian: python3-wheel; a virtual "
            "environment sees it when made with --system-site-packages)")

ROOT = os.path.dirname(os.path.abspath(__file__))
# Relative paths: setuptools refuses absolute ones in some options.
BUILD_BASE = os.path.join("build", "python")
LIB_DIR = "throng.libs"  # inside the package, beside throng.py
LIB_NAME = "libthrong.so"


def header_version():
    """major.minor.patch from include/throng.h, the one place it is
    written."""
    with open(os.path.join(ROOT, "include", "throng.h")) as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define THRONG_VERSION_%s (\d+)" % part, text, re.M)
        if not m:
            raise RuntimeError("include/throng.h defines no "
                               "THRONG_VERSION_%s" % part)
        parts.append(m.group(1))
    return ".".join(parts)


def make_env():
    """The environment for make. A make above pip (make
    python-install-test) hands its job server down in MAKEFLAGS, but pip
    does not pass the server's pipes on: keep the rest of MAKEFLAGS (the
    variables given on that make's command line), drop the job server,
    which -j below replaces."""
    env = dict(os.environ)
    flags = env.get("MAKEFLAGS")
    if flags:
        env["MAKEFLAGS"] = " ".join(
            w for w in flags.split(" ")
            if not w.startswith(("--jobserver-auth=", "--jobserver-fds=")))
    return env


def make(*args):
    jobs = os.environ.get("THRONG_MAKE_JOBS") or str(os.cpu_count() or 1)
    cmd = ["make", "-C", ROOT, "--no-print-directory", "-j" + jobs] + \
        list(args)
    try:
        return subprocess.run(cmd, env=make_env(), check=True,
                              stdout=subprocess.PIPE,
                              universal_newlines=True).stdout
    except FileNotFoundError:
        raise RuntimeError("throng: building the package runs make, which "
                           "is not on PATH (Debian: make gcc uthash-dev)")


def build_library():
    """Runs make for the shared library of the build the environment
    selects; returns the path of the real file and its soname (the name
    of the link make made to it)."""
    build = make("-s", "print-build").strip()
    if not os.path.isabs(build):
        build = os.path.join(ROOT, build)
    link = os.path.join(build, LIB_NAME)
    out = make(os.path.relpath(link, ROOT))
    if out.strip():
        print(out.rstrip())
    real = os.path.realpath(link)
    soname = os.readlink(link) if os.path.islink(link) else ""
    if not os.path.isfile(real) or not soname.startswith(LIB_NAME + "."):
        raise RuntimeError("throng: make built no %s leading to the "
                           "library by its soname" % link)
    return real, soname


class BuildPy(build_py):
    """The modules as setuptools copies them, and the library beside."""

    def run(self):
        super().run()
        real, soname = build_library()
        # Under its soname, the name the dynamic loader looks for: a C
        # program linked against this copy (python/tests/test_parity.py
        # does) finds it by that name beside its rpath.
        target = os.path.join(self.build_lib, LIB_DIR, soname)
        self._library = target
        # setuptools keeps build/python/ from one build to the next: an
        # older library (another soname) must not ride along.
        shutil.rmtree(os.path.dirname(target), ignore_errors=True)
        self.mkpath(os.path.dirname(target))
        # A copy, not a link: a wheel holds no symbolic links. The debug
        # information (-g: 20 MB of the 0.6.0 library's 23 MB) stays with
        # the build's copy; the code, the symbols and the build ID are the
        # same. A strip that cannot read the file (a cross build) leaves
        # it whole.
        strip = shutil.which("strip")
        if not strip or subprocess.run(
                [strip, "--strip-debug", "-o", target, real]).returncode:
            shutil.copyfile(real, target)
        os.chmod(target, 0o755)
        print("throng: %s -> %s" % (os.path.relpath(real, ROOT), target))

    def get_outputs(self, include_bytecode=1):
        library = getattr(self, "_library", None)
        return super().get_outputs(include_bytecode) + \
            ([library] if library else [])


class BdistWheel(bdist_wheel):
    """py3-none-<platform>: the library is native code for this platform,
    while the binding itself runs on any Python 3 (ctypes; no extension
    module, so no Python ABI)."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


class NativeDistribution(Distribution):
    """Says the package holds native code, so it installs into platlib and
    its wheel is not marked pure."""

    def has_ext_modules(self):
        return True


# setuptools checks that egg_base exists before it writes there.
os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)

setup(
    version=header_version(),
    distclass=NativeDistribution,
    cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel},
    options={"build": {"build_base": BUILD_BASE},
             "egg_info": {"egg_base": BUILD_BASE}},
)
