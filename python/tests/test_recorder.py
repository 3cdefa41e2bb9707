# SPDX-License-Identifier: MIT
"""Recording trajectories from Python and reading them back.

A churning run (agents removed and added between steps, every agent keyed
so its id is its host key) is recorded in 2D and in 3D; read back with
throng.read_recording, every frame's ids, positions and headings equal the
columns copied at that step, bit for bit (a REAL is the float's double).
The file also reads as a pedestrian-dynamics tool reads it (plain SQL on
trajectory_data, metadata and geometry). A library built without SQLite
refuses to open a recorder with UnsupportedError.
"""

import os
import sqlite3
import tempfile
import unittest

# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401

import throng  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None


def churn_world(dims, agents, rng):
    w = throng.World(dimensions=dims, neighbour_radius=2.0, seed=3)
    w.default_group.set_flocking(separation_weight=1.0,
                                 alignment_weight=0.5)
    key = [0]

    def add():
        key[0] += 1
        w.add_agent(position=[rng.uniform(-20, 20) for _ in range(dims)],
                    velocity=[rng.uniform(-1, 1) for _ in range(dims)],
                    host_key=key[0])

    for _ in range(agents):
        add()
    return w, add


def capture(world):
    """Rows of the world now, by host key: {key: (p, f)} of floats."""
    c = world.columns(numpy=False)
    dims = world.dimensions
    out = {}
    axes = ("px", "py", "pz")[:dims]
    heads = ("fx", "fy", "fz")[:dims]
    cols = {n: getattr(c, n) for n in axes + heads + ("host_key",)}
    for i in range(c.count):
        out[cols["host_key"][i]] = (tuple(cols[a][i] for a in axes),
                                    tuple(cols[h][i] for h in heads))
    return out


@unittest.skipUnless(throng.recorder_supported(),
                     "library built without SQLite")
class TestRecorder(unittest.TestCase):
    def roundtrip(self, dims, every):
        import random
        rng = random.Random(5)
        world, add = churn_world(dims, 300, rng)
        steps = 30
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.sqlite")
            expected = []
            with throng.Recorder(world, path, every=every,
                                 fps=20.0 / every) as rec:
                for s in range(steps):
                    if s % every == 0:
                        expected.append((world.step_count, capture(world)))
                    rec.record()
                    for _ in range(4):
                        world.agent_at(rng.randrange(len(world))).remove()
                    for _ in range(5):
                        add()
                    world.step(0.05)
                rec.flush()
                st = rec.stats()
                self.assertEqual(st["frames_committed"], len(expected))
                self.assertEqual(st["last_committed_frame"],
                                 len(expected) - 1)
            run = throng.read_recording(path)
            self.assertEqual(run.dimensions, dims)
            self.assertEqual(run.fps, 20.0 / every)
            self.assertEqual(run.metadata["version"], "1")
            self.assertTrue(run.geometry.startswith("POLYGON (("))
            self.assertEqual((run.z is None), dims == 2)
            self.assertEqual(list(run.frames[0]), list(range(len(expected))))
            self.assertEqual(list(run.frames[1]), [e[0] for e in expected])
            # Every row, in (frame, id) order, against the capture.
            k = 0
            pos = [run.x, run.y, run.z][:dims]
            ori = [run.ori_x, run.ori_y, run.ori_z][:dims]
            for f, (step, rows) in enumerate(expected):
                self.assertEqual(run.frames[2][f], len(rows))
                for key in sorted(rows):
                    self.assertEqual(int(run.frame[k]), f)
                    self.assertEqual(int(run.id[k]), key)
                    p, h = rows[key]
                    for a in range(dims):
                        # The float's double, to the bit.
                        self.assertEqual(float(pos[a][k]), p[a])
                        self.assertEqual(float(ori[a][k]), h[a])
                    k += 1
            self.assertEqual(k, len(run.frame))
            # As PedPy and JuPedSim's viewer read it: plain SQL.
            con = sqlite3.connect(path)
            try:
                rows = con.execute("select frame, id, pos_x as x, pos_y as y "
                                   "from trajectory_data").fetchall()
                self.assertEqual(len(rows), k)
                fps = con.execute("select value from metadata where key = "
                                  "'fps'").fetchone()[0]
                self.assertEqual(float(fps), 20.0 / every)
                wkt = con.execute("select wkt from geometry").fetchone()[0]
                self.assertEqual(wkt, run.geometry)
                xmin = float(con.execute("select value from metadata where "
                                         "key = 'xmin'").fetchone()[0])
                self.assertEqual(xmin, min(float(x) for x in run.x))
            finally:
                con.close()
        world.close()

    def test_roundtrip_2d(self):
        self.roundtrip(2, 1)

    def test_roundtrip_3d_every_second(self):
        self.roundtrip(3, 2)

    @unittest.skipUnless(np is not None, "NumPy is not installed")
    def test_numpy_arrays(self):
        world, _ = churn_world(2, 50, __import__("random").Random(1))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "np.sqlite")
            with throng.Recorder(world, path) as rec:
                for _ in range(3):
                    rec.record()
                    world.step(0.1)
            run = throng.read_recording(path)
            self.assertIsInstance(run.x, np.ndarray)
            self.assertEqual(run.x.dtype, np.float64)
            self.assertEqual(run.id.dtype, np.int64)
            self.assertEqual(run.x.shape, (150,))
            # One frame as a (n, 2) array of positions.
            first = np.stack([run.x, run.y], axis=1)[run.frame == 0]
            self.assertEqual(first.shape, (50, 2))
        world.close()

    def test_refusals(self):
        world, _ = churn_world(2, 10, __import__("random").Random(2))
        h = world.hash
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.sqlite")
            with self.assertRaises(throng.OutOfRangeError):
                throng.Recorder(world, path, every=0)
            with self.assertRaises(throng.OutOfRangeError) as cm:
                throng.Recorder(world, path, fps=-1)
            self.assertIn("fps", str(cm.exception))
            with open(path, "w") as f:
                f.write("not a database, not at all, no pages here" * 4)
            with self.assertRaises(throng.IOError_) as cm:
                throng.Recorder(world, path)
            self.assertIn("not an SQLite database", str(cm.exception))
            os.unlink(path)
            rec = throng.Recorder(world, path)
            rec.record()
            world.close()  # the world goes first
            with self.assertRaises(throng.StaleHandleError):
                rec.record()
            rec.close()
            rec.close()  # idempotent
            with self.assertRaises(ValueError):
                rec.record()
            self.assertEqual(len(throng.read_recording(path).frame), 10)
        self.assertNotEqual(h, 0)


@unittest.skipIf(throng.recorder_supported(), "library built with SQLite")
class TestRecorderUnsupported(unittest.TestCase):
    def test_open_refused(self):
        with throng.World(dimensions=2) as w:
            with self.assertRaises(throng.UnsupportedError) as cm:
                throng.Recorder(w, os.path.join(tempfile.gettempdir(),
                                                "never.sqlite"))
            self.assertIn("SQLite", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
