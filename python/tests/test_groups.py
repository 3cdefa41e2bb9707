# SPDX-License-Identifier: MIT
"""Group handles, object defs and the group and host-key columns (0.5)."""

import unittest

# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401

import throng  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None


class TestGroups(unittest.TestCase):
    def test_handles_removal_and_reuse(self):
        with throng.World() as w:
            d = w.default_group
            self.assertEqual((d.id, d.name), (0, "default"))
            self.assertGreaterEqual(d.generation, 1)
            g = w.create_group(name="g")
            self.assertEqual((g.id, g.generation), (1, 1))
            self.assertEqual(g.c_handle.world, w._id)
            a = w.add_agent(group=g)
            self.assertEqual(a.group, g)
            with self.assertRaises(throng.InvalidArgError) as cm:
                g.remove()
            self.assertIn("1 agent still belongs", str(cm.exception))
            self.assertTrue(g.valid)
            a.group = None
            self.assertEqual(a.group, d)
            g.remove()
            self.assertFalse(g.valid)
            for fn in (lambda: g.set_combine("priority"),
                       lambda: w.add_agent(group=g),
                       lambda: w.group(g), g.remove):
                with self.assertRaises(throng.StaleHandleError):
                    fn()
            with self.assertRaises(throng.NotFoundError):
                w.group("g")
            h = w.create_group(name="g")
            self.assertEqual((h.id, h.generation), (1, 2))
            self.assertNotEqual(h, g)
            self.assertEqual(w.group("g"), h)
            with self.assertRaises(TypeError):
                w.add_agent(group=1)
        self.assertFalse(h.valid)

    def test_rebind_after_load(self):
        with throng.World() as w:
            g = w.create_group(name="walkers")
            w.add_agent(group=g)
            data = w.to_bytes()
            with throng.World.load(data) as v:
                with self.assertRaises(throng.StaleHandleError):
                    v.group(g)
                h = v.rebind(g)
                self.assertEqual((h.id, h.generation), (g.id, g.generation))
                self.assertIs(h.world, v)
                self.assertEqual(v.group("walkers"), h)
                self.assertEqual(v.agent_at(0).group, h)
                self.assertEqual(v.rebind(g.c_handle), h)
                with self.assertRaises(throng.StaleHandleError):
                    v.rebind(throng.throng_group(g.id, g.generation + 1,
                                                 w._id))


class TestObjectDefs(unittest.TestCase):
    def test_one_verb_per_kind(self):
        with throng.World(dimensions=3) as w:
            s = w.add_obstacle(throng.ObstacleDef(center=(1, 2, 3)))
            self.assertEqual(s.info(), dict(kind="sphere",
                                            center=(1, 2, 3), radius=1.0))
            b = w.add_obstacle(kind=throng.ObjectKind.BOX, min=(0, 0, 0),
                               max=(1, 1, 1))
            self.assertEqual(b.kind, "box")
            p = w.add_wall(kind="plane", normal=(0, 0, 2))
            self.assertEqual(p.info()["normal"], (0, 0, 1))
            with self.assertRaises(throng.OutOfRangeError) as cm:
                w.add_wall(a=(0, 0, 0), b=(1, 0, 0))  # segments are 2D
            self.assertTrue(str(cm.exception).startswith("throng_wall_add"))
            with self.assertRaises(throng.InvalidArgError) as cm:
                w.add_wall(kind="plane", normal=(0, 0, 1), a=(1, 0, 0))
            self.assertIn("a is for segments", str(cm.exception))
            path = w.add_path(throng.PathDef(points=[(0, 0, 0), (1, 0, 0)]))
            self.assertEqual(path.info()["radius"], 1.0)
            f = w.add_flow_field(vectors=[(0, 1, 0)])
            self.assertEqual(f.info()["size"], (1, 1, 1))
            with self.assertRaises(TypeError):
                w.add_path(throng.PathDef(), radius=2)
            with self.assertRaises(TypeError):
                w.add_obstacle(throng.WallDef())
            with self.assertRaises(TypeError):
                w.add_obstacle(colour="red")
            self.assertEqual(w.object_count, 5)


class TestGroupColumns(unittest.TestCase):
    def check(self, use_numpy, kinds):
        with throng.World() as w:
            g = w.create_group()
            agents = [w.add_agent(position=(i, 0), host_key=10 + i,
                                  group=g if i % 2 else None)
                      for i in range(6)]
            c = w.columns(numpy=use_numpy)
            for row in range(c.count):
                a = w.agent_at(row)
                self.assertEqual(c.group[row], a.group.id)
                self.assertEqual(c.host_key[row], a.host_key)
            agents[2].host_key = 99
            agents[2].group = g
            c = w.columns(numpy=use_numpy)
            row = agents[2].index
            self.assertEqual((c.group[row], c.host_key[row]), (g.id, 99))
            w.step(0.1)
            c = w.columns(numpy=use_numpy)
            self.assertEqual(sorted(c.host_key[i] for i in range(c.count)),
                             [10, 11, 13, 14, 15, 99])
            kinds(c)

    def test_memoryview(self):
        def kinds(c):
            self.assertEqual(c.group.format, "I")
            self.assertEqual(c.host_key.format, "Q")
        self.check(False, kinds)

    @unittest.skipUnless(np is not None, "NumPy is not installed")
    def test_numpy(self):
        def kinds(c):
            self.assertEqual(c.group.dtype, np.uint32)
            self.assertEqual(c.host_key.dtype, np.uint64)
            self.assertFalse(c.group.flags.writeable)
        self.check(True, kinds)


if __name__ == "__main__":
    unittest.main()
