# SPDX-License-Identifier: MIT
"""Compares the ctypes layout of the behaviour schema's structs
(python/throng_schema.py, and throng_group_def in throng.py) with the C
compiler's, as printed by the schema-layout program (tools/schema_layout.c).

    python3 python/tests/schema_layout.py <schema-layout output file>
"""

import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401
import throng_schema  # noqa: E402


def _class(name, extra):
    cls = getattr(throng_schema, name, None) or extra.get(name)
    if cls is None:
        raise KeyError(name)
    return cls


def mismatches(lines, extra=None):
    """The lines of the C layout that the ctypes mirror contradicts."""
    extra = extra or {}
    bad = []
    for line in lines:
        words = line.split()
        if not words:
            continue
        if len(words) == 3 and words[1] == "size":
            got = ctypes.sizeof(_class(words[0], extra))
            want = int(words[2])
        else:
            struct, field = words[0].split(".")
            cls = _class(struct, extra)
            if not hasattr(cls, field):
                bad.append("%s: no field %s in the mirror" % (struct, field))
                continue
            got = getattr(cls, field).offset
            want = int(words[1])
        if got != want:
            bad.append("%s: C says %d, ctypes %d" % (line.strip(), want, got))
    return bad


def main(path):
    extra = {}
    try:  # throng_group_def lives in the binding, which loads the library
        import throng
        extra["throng_group_def"] = throng.throng_group_def
    except (ImportError, OSError):
        pass
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("throng_group_def") or
                 extra]
    bad = mismatches(lines, extra)
    for b in bad:
        print("schema layout: " + b, file=sys.stderr)
    if bad:
        return 1
    print("schema layout: %d sizes and offsets agree" % len(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
