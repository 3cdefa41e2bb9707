# SPDX-License-Identifier: MIT
"""Which copy of the binding the tests import: every test file imports
this module before `import throng`.

By default the source tree's: python/ goes first on sys.path, and
throng.py finds the library as it always does (THRONG_LIBRARY, else
build/libthrong.so; `make python-test` sets THRONG_LIBRARY).

With THRONG_TEST_INSTALLED=1, the installed package's (pip install; `make
python-install-test`): python/ is kept off sys.path (taken out if the
interpreter put it there, as it does for the current folder), and the
import fails when `throng` would still come from the source tree, so a
passing run proves the installed copy passes. The tests still read
include/throng.h and tests' C programs from the tree they live in (REPO).

Child interpreters the tests start put MODULE_DIR (the folder of the
throng.py the tests import) first on their sys.path: the same copy again.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)      # python/ of the source tree
REPO = os.path.dirname(SOURCE_DIR)
INSTALLED = os.environ.get("THRONG_TEST_INSTALLED", "") not in ("", "0")


def _is_source(entry):
    return os.path.realpath(entry or os.curdir) == \
        os.path.realpath(SOURCE_DIR)


if INSTALLED:
    sys.path[:] = [p for p in sys.path if not _is_source(p)]
else:
    sys.path.insert(0, SOURCE_DIR)


def _where(name):
    """The folder `import name` would load from, found without importing
    it (throng loads the library, which make check-schema's use of
    schema_layout.py does without)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        raise ImportError("no module named %r on sys.path%s" % (
            name, " (THRONG_TEST_INSTALLED: is the package installed?)"
            if INSTALLED else ""))
    return os.path.dirname(os.path.abspath(spec.origin))


MODULE_DIR = _where("throng")

if INSTALLED:
    for _name in ("throng", "throng_schema"):
        if _is_source(_where(_name)):
            raise ImportError(
                "THRONG_TEST_INSTALLED is set, but %s would come from the "
                "source tree (%s)" % (_name, SOURCE_DIR))
