# SPDX-License-Identifier: MIT
"""The behaviour schema from Python: the generated mirror's layout equals
the C compiler's, and a call gives the same result from Python as from C
(keywords map one to one onto fields; nothing is switched implicitly)."""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401
import throng  # noqa: E402
import throng_schema  # noqa: E402
import schema_layout  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_LAYOUT = os.environ.get("THRONG_SCHEMA_LAYOUT") or os.path.join(
    _HERE, os.pardir, os.pardir, "build", "schema-layout")


class SchemaLayout(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(_LAYOUT),
                         "schema-layout is not built (make check-schema)")
    def test_ctypes_layout_is_c_layout(self):
        lines = subprocess.run([_LAYOUT], check=True, capture_output=True,
                               text=True).stdout.splitlines()
        self.assertGreater(len(lines), 70)
        bad = schema_layout.mismatches(
            lines, {"throng_group_def": throng.throng_group_def})
        self.assertEqual(bad, [])

    def test_defaults_are_the_tables(self):
        for f in throng_schema.FIELDS:
            if f.struct != "throng_behaviour" and f.kinds:
                kind = next(k for k, m in
                            throng_schema.PARAMS_OF_KIND.items()
                            if getattr(throng_schema, f.struct) is
                            type(getattr(throng_schema.throng_behaviour().u,
                                         m)) and k.name in f.kinds)
                b = throng.lib.throng_behaviour_default(kind)
                value = getattr(getattr(b.u, throng_schema.PARAMS_OF_KIND[
                    kind]), f.name)
                if f.type == "object":
                    value = value.id
                elif f.count == 3:
                    value = value[0]
                self.assertAlmostEqual(float(value), f.default, places=6,
                                       msg=f.name)


class SameAsC(unittest.TestCase):
    def test_seek_point_needs_fixed_source(self):
        with throng.World(dimensions=2) as w:
            g = w.create_group()
            with self.assertRaises(throng.InvalidArgError) as e:
                g.add_behaviour("seek", point=(3, 4))
            self.assertIn("seek.point is not read by SEEK", str(e.exception))
            self.assertEqual(g.behaviour_count, 0)
            g.add_behaviour("seek", source="fixed_point", point=(3, 4))
            b = g.get_behaviour(0)
            self.assertEqual(b["source"], throng.TargetSource.FIXED_POINT)
            self.assertEqual(b["point"], (3.0, 4.0))
            # A get_behaviour dict goes back in as it came out.
            d = dict(b)
            kind = d.pop("kind")
            g.set_behaviour(0, kind, **d)

    def test_unread_fields_refused(self):
        with throng.World(dimensions=2) as w:
            g = w.create_group()
            for kind, key, value in (("seek", "flee_range", 2.0),
                                     ("contain", "box_min", (1, 1)),
                                     ("follow_wall", "use_walls", False),
                                     ("pursue", "offset", (1, 0))):
                with self.assertRaises(throng.InvalidArgError,
                                       msg=kind + " " + key) as e:
                    g.add_behaviour(kind, **{key: value})
                self.assertIn(key, str(e.exception))
            self.assertEqual(g.behaviour_count, 0)


if __name__ == "__main__":
    unittest.main()
