# SPDX-License-Identifier: MIT
"""Snapshots, rebinding and reading objects back from Python.

A loaded world must continue bit for bit as the saved one (equal
throng_world_hash after more steps), refuse the saved world's handles
until they are rebound, and report its settings as a created world does.
Refused loads raise the status's class with the library's sentence.
"""

import os
import pickle
import tempfile
import unittest

# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401

import throng  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None


def scene(world, agents=60):
    """A flock with a path follower, an obstacle and a flow field: every
    part of the state a snapshot carries (groups with behaviour lists,
    objects, targets, host keys)."""
    n = world.dimensions
    flock = world.create_group(
        name="flock", combine="priority",
        flocking=dict(separation_weight=1.5, alignment_weight=1.0,
                      cohesion_weight=1.0, separation_radius=0.8),
        wander=dict(weight=0.2))
    path = world.create_path([(2, 2, 2)[:n], (20, 3, 4)[:n],
                              (18, 18, 9)[:n]], 1.5, closed=True)
    world.add_obstacle_sphere((10, 10, 5)[:n], 1.5)
    walkers = world.create_group(name="walkers")
    walkers.add_behaviour("follow_path", path=path)
    agents_out = []
    for i in range(agents):
        p = (1 + (i * 7) % 23, 1 + (i * 11) % 19, 1 + (i * 5) % 13)[:n]
        v = (0.3, 0.1 * (i % 5 - 2), 0.05)[:n]
        agents_out.append(world.add_agent(
            position=p, velocity=v, group=flock if i % 3 else walkers,
            host_key=1000 + i, max_speed=1.5))
    agents_out[5].target_agent = agents_out[6]
    return agents_out, path


class TestSnapshot(unittest.TestCase):
    def test_bytes_round_trip_continues_bit_for_bit(self):
        for dims, boundary in ((2, "periodic"), (3, "unbounded")):
            with throng.World(dimensions=dims, boundary=boundary,
                              box=(25,) * dims, neighbour_radius=1.5,
                              seed=11) as w:
                scene(w)
                w.step(0.05, 7)
                data = w.to_bytes()
                self.assertEqual(len(data), w.snapshot_size)
                self.assertEqual(data[:8], b"THRNGSNP")
                with throng.World.load(data) as v:
                    self.assertEqual(v.hash, w.hash)
                    self.assertEqual(v.step_count, w.step_count)
                    self.assertEqual(v.agent_count, w.agent_count)
                    self.assertEqual(v.object_count, w.object_count)
                    self.assertEqual(
                        (v.dimensions, v.boundary, v.box,
                         v.neighbour_radius, v.seed),
                        (w.dimensions, w.boundary, w.box,
                         w.neighbour_radius, w.seed))
                    self.assertNotEqual(v._id, w._id)
                    w.step(0.05, 13)
                    v.step(0.05, 13)
                    self.assertEqual(v.hash, w.hash, (dims, boundary))
                    # bytearray and memoryview sources load the same.
                    for src in (bytearray(data), memoryview(data)):
                        with throng.World.load(src) as u:
                            u.step(0.05, 13)
                            self.assertEqual(u.hash, w.hash)

    def test_file_round_trip_and_pickle(self):
        with throng.World(seed=3) as w, tempfile.TemporaryDirectory() as d:
            scene(w, 30)
            w.step(0.1, 3)
            path = os.path.join(d, "world.snap")
            w.save(path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), w.to_bytes())
            from pathlib import Path
            for src in (path, Path(path)):
                with throng.World.load(src) as v:
                    self.assertEqual(v.hash, w.hash)
                    self.assertEqual(v.neighbour_radius, 1.0)
            clone = pickle.loads(pickle.dumps(w))
            w.step(0.1, 5)
            clone.step(0.1, 5)
            self.assertEqual(clone.hash, w.hash)
            clone.close()
            # Saving over an existing file replaces it whole.
            w.save(path)
            with throng.World.load(path) as v:
                self.assertEqual(v.hash, w.hash)

    def test_refused_loads_and_saves(self):
        with throng.World() as w:
            scene(w, 10)
            data = w.to_bytes()
            before = w.hash
        cases = [
            (data[:-1], throng.BadSnapshotError, "truncated"),
            (data[:20], throng.BadSnapshotError, "truncated"),
            (data[:100] + bytes([data[100] ^ 1]) + data[101:],
             throng.BadSnapshotError, "checksum"),
            (b"not a snapshot at all, not at all, no" * 2,
             throng.BadSnapshotError, "throng_world_load"),
            (data[:8] + b"\x63\x00\x00\x00" + data[12:],
             throng.VersionError, "version"),
        ]
        for blob, cls, words in cases:
            with self.assertRaises(cls) as cm:
                throng.World.load(blob)
            self.assertIn(words, str(cm.exception))
            self.assertEqual(cm.exception.status, cls.status)
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "nothing.snap")
            with self.assertRaises(throng.IOError_) as cm:
                throng.World.load(missing)
            self.assertIn("nothing.snap", str(cm.exception))
            self.assertIsInstance(cm.exception, OSError)
            with throng.World() as w:
                scene(w, 8)
                with self.assertRaises(throng.IOError_) as cm:
                    w.save(os.path.join(d, "no", "such", "dir.snap"))
                self.assertTrue(str(cm.exception).startswith(
                    "throng_world_save_file"), str(cm.exception))
                with self.assertRaises(throng.IOError_):
                    w.save("")
                self.assertEqual(os.listdir(d), [])
                with self.assertRaises(TypeError):
                    w.save(3.5)
                with self.assertRaises(TypeError):
                    throng.World.load(3.5)
        # The bytes are unchanged by the refusals: they still load.
        with throng.World.load(data) as v:
            self.assertEqual(v.hash, before)

    def test_non_finite_column_is_refused(self):
        if np is None:
            self.skipTest("NumPy is not installed")
        with throng.World() as w:
            scene(w, 8)
            c = w.columns()
            # Only writing through a column pointer can put a NaN there.
            base = np.ctypeslib.as_array(
                (throng.ctypes.c_float * c.count).from_address(
                    c.address("vx")))
            base[2] = float("nan")
            with self.assertRaises(throng.NotFiniteError) as cm:
                w.to_bytes()
            self.assertIn("vx", str(cm.exception))
            with tempfile.TemporaryDirectory() as d:
                with self.assertRaises(throng.NotFiniteError):
                    w.save(os.path.join(d, "x.snap"))
                self.assertEqual(os.listdir(d), [])


class TestRebind(unittest.TestCase):
    def test_agents_objects_and_c_handles(self):
        with throng.World(seed=5) as w:
            agents, path = scene(w, 20)
            gone = agents[3]
            w.remove(gone)
            data = w.to_bytes()
            later = w.add_agent(position=(1, 1))
            with throng.World.load(data) as v:
                a = agents[7]
                # The saved world's handles are refused until rebound.
                with self.assertRaises(throng.StaleHandleError):
                    v.remove(a)
                b = v.rebind(a)
                self.assertIs(b.world, v)
                self.assertEqual((b.slot, b.generation),
                                 (a.slot, a.generation))
                self.assertEqual(b.position, a.position)
                self.assertEqual(b.host_key, a.host_key)
                self.assertEqual(v.find_agent(a.host_key), b)
                # A live handle of the world itself comes back as it is.
                self.assertEqual(v.rebind(b), b)
                # C handles kept from the saving world (another process
                # would keep these three numbers).
                self.assertEqual(v.rebind(a.c_handle), b)
                # Removed before the save, added after it, forged: refused.
                for bad in (gone, later,
                            throng.throng_agent(a.slot, a.generation + 1,
                                                w._id)):
                    with self.assertRaises(throng.StaleHandleError) as cm:
                        v.rebind(bad)
                    self.assertTrue(str(cm.exception).startswith(
                        "throng_agent_rebind"), str(cm.exception))
                # The target carried over names the loaded agent.
                self.assertEqual(v.rebind(agents[5]).target_agent,
                                 v.rebind(agents[6]))
                # Objects.
                p = v.rebind(path)
                self.assertEqual(p.kind, "path")
                got, want = p.info(), path.info()
                self.assertEqual(repr(got), repr(want))
                self.assertEqual(v.rebind(path.c_handle), p)
                walkers = v.group("walkers")
                self.assertEqual(walkers.get_behaviour(0)["path"], p)
                v.remove_object(p)
                with self.assertRaises(throng.StaleHandleError):
                    v.rebind(path)
                # Only the saving world's handles: not a third world's.
                with throng.World.load(data) as u:
                    with self.assertRaises(throng.StaleHandleError):
                        u.rebind(b)
                with self.assertRaises(TypeError):
                    v.rebind((1, 1))


class TestObjects(unittest.TestCase):
    def test_info_of_every_kind(self):
        with throng.World(dimensions=2) as w:
            s = w.add_obstacle_sphere((1, 2), 0.5)
            b = w.add_obstacle_box((0, 0), (1, 3))
            g = w.add_wall_segment((0, 0), (4, 0))
            p = w.add_wall_plane((0, 1), (0, 2))
            path = w.create_path([(0, 0), (3, 0), (3, 4)], 0.7, closed=True)
            vec = [(0.5 * i, -0.25 * i) for i in range(6)]
            f = w.create_flow_field((1, 1), 2.0, (3, 2), vec)
            self.assertEqual(s.info(), dict(kind="sphere", center=(1, 2),
                                            radius=0.5))
            self.assertEqual(b.info(), dict(kind="box", min=(0, 0),
                                            max=(1, 3)))
            self.assertEqual(g.info(), dict(kind="segment", a=(0, 0),
                                            b=(4, 0)))
            # The normal comes back normalised.
            self.assertEqual(p.info(), dict(kind="plane", point=(0, 1),
                                            normal=(0, 1)))
            pi = path.info()
            self.assertAlmostEqual(pi["radius"], 0.7, places=6)
            self.assertIs(pi["closed"], True)
            fi = f.info()
            self.assertEqual((fi["origin"], fi["cell_size"], fi["size"]),
                             ((1, 1), 2.0, (3, 2)))
            if np is not None:
                np.testing.assert_array_equal(
                    pi["points"], np.array([(0, 0), (3, 0), (3, 4)],
                                           dtype=np.float32))
                self.assertEqual(fi["vectors"].shape, (2, 3, 2))
                np.testing.assert_array_equal(
                    fi["vectors"].reshape(-1, 2),
                    np.array(vec, dtype=np.float32))
            else:
                self.assertEqual(pi["points"], [(0, 0), (3, 0), (3, 4)])
                self.assertEqual(fi["vectors"], vec)
            # object_at walks the live objects in id order.
            self.assertEqual(w.objects(), [s, b, g, p, path, f])
            w.remove_object(b)
            self.assertFalse(b.valid)
            self.assertTrue(s.valid)
            with self.assertRaises(throng.StaleHandleError):
                b.info()
            self.assertEqual(w.objects(), [s, g, p, path, f])
            self.assertEqual([o.kind for o in w.objects()],
                             ["sphere", "segment", "plane", "path",
                              "flow_field"])
            with self.assertRaises(throng.OutOfRangeError) as cm:
                w.object_at(5)
            self.assertTrue(str(cm.exception).startswith(
                "throng_world_object_at"), str(cm.exception))
        self.assertFalse(s.valid)  # closed world

    def test_loaded_objects_know_their_kind(self):
        with throng.World(dimensions=3) as w:
            w.add_obstacle_box((0, 0, 0), (1, 1, 1))
            w.add_wall_plane((0, 0, 0), (0, 0, 3))
            with throng.World.load(w.to_bytes()) as v:
                self.assertEqual([o.kind for o in v.objects()],
                                 ["box", "plane"])
                self.assertEqual(v.objects()[1].info()["normal"],
                                 (0.0, 0.0, 1.0))


class TestModuleFunctions(unittest.TestCase):
    def test_simd_from_name_and_flocking_default(self):
        self.assertEqual(throng.simd_from_name("auto"), throng.Simd.AUTO)
        self.assertEqual(throng.simd_from_name("scalar"),
                         throng.Simd.SCALAR)
        for bad in ("AVX2", "", "sse2\0"):
            with self.assertRaises(throng.NotFoundError):
                throng.simd_from_name(bad)
        f = throng.flocking_default()
        self.assertEqual(f["separation_radius"], 0.5)
        self.assertEqual(f["separation_mode"],
                         throng.SeparationMode.FLEE_AVERAGE)


if __name__ == "__main__":
    unittest.main()
