# SPDX-License-Identifier: MIT
"""Navigation fields from Python: build, sample, the distance array,
costs and rebuilds, agents that follow a field and arrive."""

import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import throng  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None


def corridor(w):
    """A 20 x 10 m room cut by a wall at x = 10 with a gap at the top."""
    w.add_wall(a=(10, 0), b=(10, 8))


class TestNav(unittest.TestCase):
    def test_build_sample_distances(self):
        with throng.World() as w:
            corridor(w)
            f = w.add_nav_field(cell_size=0.5, size=(40, 20),
                                goals=[(18, 2)], clearance=0.8)
            self.assertIsInstance(f, throng.NavField)
            self.assertEqual(f.kind, "nav_field")
            s = f.sample((2, 2))
            self.assertTrue(s.inside and not s.at_goal)
            self.assertAlmostEqual(math.hypot(*s.direction), 1.0, places=5)
            # Round the wall's end at (10, 8): up first.
            self.assertGreater(s.direction[1], 0.3)
            self.assertGreater(s.distance, 2 * math.hypot(8, 6) - 1)
            self.assertTrue(f.sample((18, 2)).at_goal)
            self.assertFalse(f.sample((25, 2)).inside)
            self.assertTrue(math.isinf(f.sample((25, 2)).distance))
            info = f.information()
            self.assertEqual(info["size"], (40, 20))
            self.assertEqual(info["cells"], 800)
            self.assertGreater(info["solid_cells"], 0)
            self.assertGreater(info["margin_cells"], 0)
            self.assertEqual(info["goals"][0]["kind"], "point")
            d = f.distances()
            if np is not None:
                self.assertEqual(d.shape, (20, 40))
                self.assertEqual(d.dtype, np.float32)
                # The goal's cell is 0; the wall's cells are impassable.
                self.assertEqual(d[4, 36], 0.0)
                self.assertTrue(np.isinf(d[2, 19]))
                self.assertAlmostEqual(float(d[4, 4]), s.distance, delta=1.0)
            else:
                self.assertEqual(len(d), 800)
            self.assertIsInstance(w.objects()[-1], throng.NavField)
            self.assertEqual(w.objects()[-1], f)

    def test_costs_update_refusals(self):
        with throng.World() as w:
            f = w.add_nav_field(size=(10, 10), goals=[(9.5, 5.5)])
            before = f.sample((0.5, 5.5)).distance
            self.assertAlmostEqual(before, 9.0, places=3)
            f.set_costs([2.0] * 100)
            f.update()
            self.assertAlmostEqual(f.sample((0.5, 5.5)).distance, 18.0,
                                   places=2)
            self.assertTrue(f.information()["has_costs"])
            f.set_costs(None)
            w.step(0.1)  # the step rebuilds it
            self.assertAlmostEqual(f.sample((0.5, 5.5)).distance, 9.0,
                                   places=3)
            with self.assertRaises(throng.OutOfRangeError):
                f.set_costs([0.001] * 100)
            with self.assertRaises(throng.OutOfRangeError):
                f.set_costs([1.0] * 99)
            with self.assertRaises(throng.InvalidArgError) as cm:
                w.add_obstacle(kind="box", min=(4, 4), max=(6, 6))
                w.add_nav_field(size=(10, 10), goals=[(5, 5)])
            self.assertIn("impassable", str(cm.exception))
            with self.assertRaises(throng.OutOfRangeError):
                w.add_nav_field(size=(10, 10), goals=[(50, 5)])
            with self.assertRaises(throng.OutOfRangeError):
                w.add_nav_field(cell_size=0, size=(10, 10), goals=[(1, 1)])
            with self.assertRaises(throng.NotFiniteError):
                w.add_nav_field(size=(10, 10), goals=[(float("nan"), 1)])
            with self.assertRaises(throng.OutOfRangeError):
                w.add_nav_field(size=(1 << 14, 1 << 14), goals=[(1, 1)])
            self.assertEqual(w.object_count, 2)

    def test_agents_arrive_and_leave(self):
        with throng.World() as w:
            corridor(w)
            f = w.add_nav_field(cell_size=0.5, size=(40, 20),
                                goals=[dict(kind="box", a=(18, 0),
                                            b=(20, 4))],
                                clearance=0.25)
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("follow_nav", field=f, remove=True,
                            arrival_distance=0.0)
            agents = [w.add_agent(position=(2 + i, 3), group=g,
                                  max_speed=1.34, max_force=50, radius=0.2,
                                  host_key=100 + i)
                      for i in range(4)]
            other = w.add_nav_field(cell_size=0.5, size=(40, 20),
                                    goals=[(2, 9)])
            agents[0].nav_field = other
            self.assertEqual(agents[0].nav["field"], other)
            arrived = []
            for _ in range(600):
                w.step(0.1)
                arrived += w.nav_arrivals()
            self.assertEqual(len(arrived), 4)
            for a in arrived:
                self.assertTrue(a.removed)
                self.assertFalse(a.agent.valid)
            self.assertEqual(sorted(a.host_key for a in arrived),
                             [100, 101, 102, 103])
            by_field = sorted(a.field.id for a in arrived)
            self.assertEqual(by_field, sorted([other.id] + [f.id] * 3))
            self.assertEqual(w.agent_count, 0)

    def test_count_and_supply(self):
        """count_agents counts per cell; counts supplied to an empty world
        stand for its next count: the same density there, once."""
        worlds = []
        for agents in (3, 0):
            w = throng.World()
            worlds.append(w)
            f = w.add_nav_field(cell_size=1.0, size=(6, 4), goals=[(5.5, 0.5)],
                                density_interval=1, density_radius=0.0,
                                density_cost=1.0)
            for i in range(agents):
                w.add_agent(position=(1.2 + 0.3 * i, 2.5))
        (w, v) = worlds
        fw, fv = w.objects()[0], v.objects()[0]
        counts = fw.count_agents()
        flat = list(np.asarray(counts).reshape(-1)) if np is not None \
            else counts
        self.assertEqual(len(flat), 24)
        self.assertEqual(flat[1 + 6 * 2], 3)
        self.assertEqual(sum(flat), 3)
        fv.supply_counts(flat)
        w.step(0.01)
        v.step(0.01)
        self.assertAlmostEqual(fv.sample((1.5, 2.5)).density, 3.0)
        self.assertAlmostEqual(fw.sample((1.5, 2.5)).density, 3.0)
        v.step(0.01)
        self.assertEqual(fv.sample((1.5, 2.5)).density, 0.0)
        with self.assertRaises(throng.OutOfRangeError):
            fv.supply_counts([1, 2])
        plain = v.add_nav_field(cell_size=1.0, size=(4, 4), goals=[(1, 1)])
        with self.assertRaises(throng.InvalidArgError):
            plain.supply_counts([0] * 16)
        fv.supply_counts(None)
        for x in worlds:
            x.close()


if __name__ == "__main__":
    unittest.main()
