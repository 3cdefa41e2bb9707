# SPDX-License-Identifier: MIT
"""The binding covers the whole header: every public function, struct,
enum and numeric constant of include/throng.h.

A function added to the header without a wrapper, a struct without a
ctypes mirror (whose layout test_throng.TestLayout then checks), an enum
value or a limit the binding lacks, fails here. The header is read as
text; the constants' values come from the C compiler.
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# Which copy of the binding: the source tree's, or the installed one.
from binding_path import REPO  # noqa: E402
HEADER = os.path.join(REPO, "include", "throng.h")

import throng  # noqa: E402
from test_throng import STRUCTS  # noqa: E402


def header_text():
    with open(HEADER) as f:
        text = f.read()
    # Comments may mention names that are no declarations.
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def header_functions(text):
    return re.findall(r"THRONG_API\s+[^;(]*?\b(throng_\w+)\s*\(", text)


def header_structs(text):
    """Structs with a body (the opaque throng_world has none)."""
    return re.findall(r"typedef\s+struct\s+(throng_\w+)\s*\{", text)


def header_enums(text):
    """{enum name: {constant: value}} for every typedef enum."""
    out = {}
    for body, name in re.findall(
            r"typedef\s+enum\s+throng_\w+\s*\{(.*?)\}\s*(throng_\w+)\s*;",
            text, flags=re.S):
        out[name] = {c: int(v) for c, v in re.findall(
            r"\b(THRONG_\w+)\s*=\s*(\d+)", body)}
    return out


def header_limits(text):
    """Numeric #defines (limits, lengths, the snapshot version)."""
    names = re.findall(r"#define\s+THRONG_(\w+)\s+\(?[0-9]", text)
    skip = ("VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH")
    return [n for n in names if n not in skip]


def binding_source():
    with open(throng.__file__) as f:
        return f.read()


def python_enum(c_name):
    """throng_object_kind -> throng.ObjectKind."""
    stem = c_name[len("throng_"):]
    return getattr(throng, "".join(p.capitalize() for p in stem.split("_")),
                   None)


class TestCoverage(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(HEADER):
            self.skipTest("no include/throng.h")
        self.text = header_text()

    def test_header_parses(self):
        # The patterns below still find the header's declarations.
        self.assertGreater(len(header_functions(self.text)), 80)
        self.assertGreater(len(header_structs(self.text)), 20)
        self.assertGreater(len(header_enums(self.text)), 8)

    def test_every_function_is_declared_and_wrapped(self):
        functions = header_functions(self.text)
        declared = set(throng._SIGNATURES)
        self.assertEqual(sorted(set(functions) - declared), [],
                         "functions of the header without argtypes")
        self.assertEqual(sorted(declared - set(functions)), [],
                         "declarations of functions the header lacks")
        source = binding_source()
        unwrapped = []
        for name in functions:
            if re.search(r"\blib\.%s\b" % name, source):
                continue
            # The agent accessors are called by name from the Agent
            # properties they serve (position, mass, progress, ...).
            m = re.match(r"throng_agent_[gs]et_(\w+)$", name)
            if m and isinstance(getattr(throng.Agent, m.group(1), None),
                                property):
                continue
            unwrapped.append(name)
        self.assertEqual(unwrapped, [], "functions no wrapper calls")

    def test_every_struct_is_mirrored_and_layout_checked(self):
        import ctypes
        missing, unchecked = [], []
        for name in header_structs(self.text):
            cls = getattr(throng, name, None)
            if not (isinstance(cls, type) and
                    issubclass(cls, ctypes.Structure)):
                missing.append(name)
            elif STRUCTS.get(name) is not cls:
                unchecked.append(name)
        self.assertEqual(missing, [], "structs without a ctypes mirror")
        self.assertEqual(unchecked, [],
                         "mirrors test_throng.STRUCTS does not check")

    def test_every_enum_value(self):
        wrong = []
        for c_name, values in header_enums(self.text).items():
            cls = python_enum(c_name)
            if cls is None:
                wrong.append("%s: no throng.%s" % (c_name, c_name))
                continue
            for constant, value in values.items():
                # THRONG_ERR_NULL -> Status.ERR_NULL, THRONG_SIMD_AVX2 ->
                # Simd.AVX2: the member is a suffix of the constant.
                members = [m for m in cls
                           if ("THRONG_" + constant[7:]).endswith(
                               "_" + m.name)]
                if not any(m.value == value for m in members):
                    wrong.append("%s = %d: no member of %s" % (
                        constant, value, cls.__name__))
            if len(cls) != len(values):
                wrong.append("%s has %d members, the header %d" % (
                    cls.__name__, len(cls), len(values)))
        self.assertEqual(wrong, [])

    def test_every_limit(self):
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler")
        names = header_limits(self.text)
        self.assertGreater(len(names), 8)
        missing = [n for n in names if not hasattr(throng, n)]
        self.assertEqual(missing, [], "limits the binding lacks")
        lines = ['#include <stdio.h>', '#include "throng.h"',
                 'int main(void) {']
        lines += ['printf("%s %%.9g\\n", (double)THRONG_%s);' % (n, n)
                  for n in names]
        lines += ['return 0;', '}']
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "limits.c")
            exe = os.path.join(tmp, "limits")
            with open(src, "w") as f:
                f.write("\n".join(lines))
            subprocess.run([cc, "-std=c11", "-I" + os.path.dirname(HEADER),
                            src, "-o", exe], check=True)
            out = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout
        for line in out.splitlines():
            name, value = line.split()
            # Lengths are C floats: equal to the float's precision.
            self.assertTrue(math.isclose(float(getattr(throng, name)),
                                         float(value), rel_tol=1e-7),
                            (name, getattr(throng, name), value))

    def test_version_floor(self):
        # The binding refuses libraries older than the structs it mirrors.
        text = self.text
        major = int(re.search(r"THRONG_VERSION_MAJOR\s+(\d+)", text)[1])
        minor = int(re.search(r"THRONG_VERSION_MINOR\s+(\d+)", text)[1])
        self.assertEqual((throng._ABI_MAJOR, throng._ABI_MIN_MINOR),
                         (major, minor))
        self.assertEqual(throng.version().split(".")[:2],
                         [str(major), str(minor)])


if __name__ == "__main__":
    unittest.main()
