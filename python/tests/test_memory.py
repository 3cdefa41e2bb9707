# SPDX-License-Identifier: MIT
"""Memory safety of the Python binding: no program can read freed memory or
crash the interpreter through it.

- Column views (NumPy arrays and memoryviews) read memory that Python owns
  (the binding's allocator), so they stay readable after close(), after a
  growth of the columns and after the World object is collected, and show
  the values they held then; after a step they show the live state (the
  world steps with stable columns while views exist).
- Every method that takes an Agent (or an object or a group) refuses one
  of another world, even when its slot and generation name an agent here.
- Query result buffers grow with the results, not with max_results.

A regression in the first group would kill the interpreter (a read of
unmapped memory), so those cases run in a child interpreter: a crash is
then a failed test, not a dead test runner. Each child script runs twice,
with NumPy arrays and with memoryviews (in a child where `import numpy`
fails). The views are read with tobytes() too, a memcpy, so that a run
under AddressSanitizer (make python-asan) reports any read of freed
memory even where the freed memory still holds its old bytes.
"""

import math
import os
import signal
import subprocess
import sys
import tracemalloc
import unittest

# Which copy of the binding: the source tree's, or the installed one.
from binding_path import MODULE_DIR as PYTHON_DIR  # noqa: E402

import throng  # noqa: E402

# Every child script starts with this: argv[1] is the binding's folder,
# argv[2] "numpy" or "memoryview" (then NumPy cannot be imported at all).
PRELUDE = r"""
import gc, sys
MODE = sys.argv[2]
if MODE == "memoryview":
    sys.modules["numpy"] = None
sys.path.insert(0, sys.argv[1])
import throng
NUMPY = MODE == "numpy"
assert throng.have_numpy == NUMPY

def cols(w):
    return w.columns(numpy=NUMPY)

def floats(view):
    return [float(x) for x in view]

def churn():
    # Reuses freed memory, were any of the views' blocks freed.
    junk = [bytearray(1 << 18) for _ in range(16)]
    junk += [bytearray(64) for _ in range(4096)]
    return len(junk)

def flock(n, threads, dims=2, box=20.0, seed=3):
    w = throng.World(dimensions=dims, boundary="periodic",
                     box=(box,) * dims, threads=threads, seed=seed)
    g = w.create_group(flocking=dict(separation_weight=1.5,
                                     alignment_weight=1.0,
                                     cohesion_weight=1.0),
                       wander=dict(weight=0.3))
    for i in range(n):
        p = [((i * 7919 + 13 * a) % 1000) / 1000 * box for a in range(dims)]
        v = [((i * 31 + 17 * a) % 21 - 10) / 10 for a in range(dims)]
        w.add_agent(position=p, velocity=v, group=g)
    return w
"""

CLOSE_SCRIPT = PRELUDE + r"""
# The finding itself: positions taken in a `with` block, read after it.
with throng.World(initial_capacity=100000, threads=1) as w:
    for i in range(64):
        w.add_agent(position=(i * 0.5, -i * 0.25), velocity=(0.3, 0.1))
    w.step(0.1)
    if NUMPY:
        px, py = w.positions
    else:
        px, py = cols(w).positions
    c = cols(w)
    vx, fy = c.vx, c.fy
    want = [v.tobytes() for v in (px, py, vx, fy)]
    want_floats = floats(px)
assert w.closed
gc.collect()
churn()
assert [v.tobytes() for v in (px, py, vx, fy)] == want
assert floats(px) == want_floats and len(px) == 64
try:
    c.px
except throng.StaleColumnsError:
    pass
else:
    raise AssertionError("a closed world's Columns must be stale")

# A world that is collected, never closed: its views stay readable too.
w = throng.World(dimensions=3, initial_capacity=50000, threads=1)
for i in range(10):
    w.add_agent(position=(i, 2 * i, 3 * i))
c = cols(w)
pz, uz = c.pz, c.uz
want = (pz.tobytes(), uz.tobytes())
del w, c
gc.collect()
churn()
assert (pz.tobytes(), uz.tobytes()) == want
assert floats(pz) == [3.0 * i for i in range(10)]
print("child ok")
"""

GROWTH_SCRIPT = PRELUDE + r"""
N = 40000
w = throng.World(initial_capacity=N, threads=1)
for i in range(N):
    w.add_agent(position=(i % 200, i // 200), velocity=(0.5, 0.25))
c = cols(w)
px, vy = c.px, c.vy
at = c.address("px")
want = (px.tobytes(), vy.tobytes())
assert len(px) == N
# One more agent grows the columns: they move, the old ones are freed by
# the library, and the views keep them.
w.add_agent(position=(-1, -1))
assert cols(w).address("px") != at, "the columns did not grow"
assert not c.valid
churn()
assert (px.tobytes(), vy.tobytes()) == want
# Steps change the new columns, never the frozen views.
w.step(0.1)
churn()
assert (px.tobytes(), vy.tobytes()) == want
assert floats(px[:3]) == [0.0, 1.0, 2.0]
# New views are live.
now = cols(w)
assert len(now.px) == N + 1
for i in range(0, N + 1, 997):
    assert (float(now.px[i]), float(now.py[i])) == w.agent_at(i).position
w.close()
assert (px.tobytes(), vy.tobytes()) == want
print("child ok")
"""

STEP_SCRIPT = PRELUDE + r"""
def check(dims, threads):
    w = flock(3000, threads, dims)
    twin = flock(3000, threads, dims)  # steps with no views at all
    w.step(1 / 30, steps=3)
    twin.step(1 / 30, steps=3)
    c = cols(w)
    names = ["px", "py", "vx", "vy", "fx", "fy"]
    if dims == 3:
        names += ["pz", "vz", "fz", "ux", "uy", "uz"]
    views = {n: getattr(c, n) for n in names}
    order = [a.slot for a in w.agents()]
    moved = False
    for s in range(6):
        before = views["px"].tobytes()
        w.step(1 / 30)
        twin.step(1 / 30)
        assert w.hash == twin.hash, "stable columns changed the results"
        assert c.valid
        live = cols(w)
        for n, view in views.items():
            assert view.tobytes() == getattr(live, n).tobytes(), (s, n)
            assert view.tobytes() == getattr(c, n).tobytes(), (s, n)
        moved |= views["px"].tobytes() != before
        for i in range(0, 3000, 251):
            a = w.agent_at(i)
            got = tuple(float(views[n][i]) for n in ("px", "py", "pz")[:dims])
            assert got == a.position, (s, i, got, a.position)
    assert moved, "the agents did not move"
    assert [a.slot for a in w.agents()] != order, "no row moved"
    assert w._stable
    # A remove moves the last row into the hole, in the same memory.
    victim = w.agent_at(5)
    w.remove(victim)
    live = cols(w)
    n = live.count
    for name, view in views.items():
        assert floats(view[:n]) == floats(getattr(live, name)), name
    w.step(1 / 30)
    live = cols(w)
    for name, view in views.items():
        assert floats(view[:n]) == floats(getattr(live, name)), name
    w.close()
    twin.close()
    churn()
    for view in views.values():
        view.tobytes()

for dims in (2, 3):
    for threads in (1, 2):
        check(dims, threads)
print("child ok")
"""


def run_child(case, script, mode):
    env = dict(os.environ, THRONG_LIBRARY=throng.library_path)
    out = subprocess.run([sys.executable, "-c", script, PYTHON_DIR, mode],
                         capture_output=True, text=True, env=env,
                         timeout=600)
    tail = out.stderr[-3000:]
    if out.returncode < 0:
        case.fail("the %s child died of %s:\n%s" % (
            mode, signal.Signals(-out.returncode).name, tail))
    case.assertEqual(out.returncode, 0, "%s child:\n%s" % (mode, tail))
    case.assertIn("child ok", out.stdout)


def numpy_mode():
    return "numpy" if throng.have_numpy else None


class TestViews(unittest.TestCase):
    """Views against close(), growth, steps and removes, in children."""

    def modes(self):
        return [m for m in (numpy_mode(), "memoryview") if m]

    def test_views_after_close(self):
        for mode in self.modes():
            with self.subTest(mode=mode):
                run_child(self, CLOSE_SCRIPT, mode)

    def test_views_after_growth(self):
        for mode in self.modes():
            with self.subTest(mode=mode):
                run_child(self, GROWTH_SCRIPT, mode)

    def test_views_after_step_and_remove(self):
        for mode in self.modes():
            with self.subTest(mode=mode):
                run_child(self, STEP_SCRIPT, mode)


class TestStableColumns(unittest.TestCase):
    """Steps keep the columns in place only while views exist."""

    def test_only_while_views_live(self):
        with throng.World(threads=1) as w:
            for i in range(100):
                w.add_agent(position=(i * 0.3, 0), velocity=(0.5, 0.5))
            w.step(0.1, steps=3)
            self.assertFalse(w._stable)  # no view: no copy-back
            positions = w.positions_copy()  # a copy is not a view
            w.step(0.1)
            self.assertFalse(w._stable)
            del positions
            px = w.columns(numpy=False).px
            w.step(0.1)
            self.assertTrue(w._stable)
            del px
            w.step(0.1)
            self.assertFalse(w._stable)
            # A view detached by a growth no longer needs stable columns.
            c = w.columns(numpy=False)
            vx = c.vx
            w.step(0.1)
            self.assertTrue(w._stable)
            while w.columns(numpy=False).address("vx") == c.address("vx"):
                w.add_agent()
            w.step(0.1)
            self.assertFalse(w._stable)
            self.assertEqual(len(vx), 100)


class TestAllocator(unittest.TestCase):
    """The binding's allocator: a block it cannot get is NULL to C (never
    an exception thrown through C), which refuses the call with
    OutOfMemoryError and leaves the world as it was."""

    def failing(self):
        saved = throng._posix_memalign
        throng._posix_memalign = lambda out, alignment, size: 12  # ENOMEM
        return saved

    def test_out_of_memory(self):
        saved = self.failing()
        try:
            with self.assertRaises(throng.OutOfMemoryError):
                throng.World()
        finally:
            throng._posix_memalign = saved
        with throng.World(threads=1) as w:
            agents = [w.add_agent(position=(i, 0)) for i in range(64)]
            c = w.columns(numpy=False)
            px = c.px
            h = w.hash
            saved = self.failing()
            try:
                with self.assertRaises(throng.OutOfMemoryError):
                    w.add_agent()  # the 65th needs bigger columns
            finally:
                throng._posix_memalign = saved
            self.assertEqual((w.agent_count, w.hash), (64, h))
            self.assertEqual(px.tolist(), [float(i) for i in range(64)])
            w.add_agent()
            w.step(0.1)
            self.assertEqual(w.agent_count, 65)
            self.assertTrue(all(a.valid for a in agents))

    def test_blocks_are_freed(self):
        w = throng.World(threads=1)
        for i in range(200):
            w.add_agent(position=(i, 0))
        w.step(0.1)
        heap = w._heap
        # Every byte the world reports is in a block the binding made.
        self.assertGreaterEqual(sum(b.size for b in heap.blocks.values()),
                                w.bytes)
        px = w.columns(numpy=False).px
        want = px.tolist()
        block = px.obj._throng_block
        self.assertIs(heap.blocks[block.address], block)
        w.close()
        self.assertEqual(heap.blocks, {})  # the library freed them all
        self.assertEqual(px.tolist(), want)  # ... but the view holds its own
        self.assertEqual(sys.getrefcount(block), 3)  # here, the view, the call
        del px
        self.assertEqual(sys.getrefcount(block), 2)  # the view let it go


# ------------------------------------------------------------------------
# Handles of another world
# ------------------------------------------------------------------------


class TestCrossWorld(unittest.TestCase):
    """Every method taking an Agent, WorldObject or Group refuses one of
    another world. The other world is picked so that its handles have the
    same slot and generation as this world's: only the world differs, and
    the binding refuses before the C library's own world-id check."""

    def setUp(self):
        self.w = throng.World()
        self.a = [self.w.add_agent(position=(i, 0)) for i in range(3)]
        self.obj = self.w.add_obstacle_sphere((5, 5), 1.0)
        for _ in range(300):
            other = throng.World()
            b = [other.add_agent(position=(i, 1)) for i in range(3)]
            if (b[0].slot, b[0].generation) == (self.a[0].slot,
                                                self.a[0].generation):
                break
            other.close()
        self.other, self.b = other, b
        self.other_obj = other.add_obstacle_sphere((5, 5), 1.0)
        self.other_group = other.create_group(name="theirs")

    def tearDown(self):
        self.w.close()
        self.other.close()

    def refused(self, fn, error=throng.StaleHandleError):
        hash_before = self.w.hash
        with self.assertRaises(error) as cm:
            fn()
        self.assertIn("another world", str(cm.exception))
        self.assertEqual(self.w.hash, hash_before)  # nothing changed
        self.assertEqual(self.w.agent_count, 3)

    def test_remove(self):
        self.refused(lambda: self.w.remove(self.b[1]))
        self.assertTrue(self.a[1].valid)
        self.assertTrue(self.b[1].valid)

    def test_target_agent(self):
        def assign():
            self.a[0].target_agent = self.b[1]
        self.refused(assign)
        self.assertIsNone(self.a[0].target_agent)
        self.a[0].target_agent = self.a[1]  # its own world's agent is fine
        self.assertEqual(self.a[0].target_agent, self.a[1])
        self.refused(assign)
        self.assertEqual(self.a[0].target_agent, self.a[1])

    def test_targeting_behaviours(self):
        # Pursue, evade, offset pursuit and leader following all steer by
        # the agent's target agent.
        for kind in ("pursue", "evade", "offset_pursuit", "follow_leader"):
            with self.subTest(kind=kind):
                g = self.w.create_group()
                g.add_behaviour(kind)
                count = self.w.agent_count
                with self.assertRaises(throng.StaleHandleError) as cm:
                    self.w.add_agent(group=g, target_agent=self.b[2])
                self.assertIn("another world", str(cm.exception))
                self.assertEqual(self.w.agent_count, count)
                self.assertEqual(g, self.w.group(g))

    def test_add_agent_with_target(self):
        self.refused(lambda: self.w.add_agent(target_agent=self.b[0]))

    def test_objects_and_groups(self):
        self.refused(lambda: self.w.remove_object(self.other_obj))
        self.assertEqual(self.w.object_count, 1)
        self.refused(lambda: self.w.group(self.other_group))
        self.refused(lambda: self.w.add_agent(group=self.other_group))
        g = self.w.create_group()
        self.refused(lambda: g.add_behaviour("follow_path",
                                             path=self.other_obj))
        self.assertEqual(g.behaviour_count, 0)

    def test_queries_return_own_agents(self):
        found = self.w.query_radius((1, 0), 5.0)
        self.assertEqual(sorted(x.slot for x in found),
                         sorted(x.slot for x in self.a))
        self.assertTrue(all(x.world is self.w for x in found))
        self.assertNotEqual(self.a[0], self.b[0])
        self.assertIs(self.w.agent_at(0).world, self.w)


# ------------------------------------------------------------------------
# Query buffers
# ------------------------------------------------------------------------


class TestQueryBuffers(unittest.TestCase):
    def setUp(self):
        self.w = throng.World(threads=1)
        self.points = [(x, y) for x in range(-10, 11) for y in range(-10, 11)]
        self.agents = [self.w.add_agent(position=p) for p in self.points]

    def tearDown(self):
        self.w.close()

    def inside(self, centre, radius):
        return {a for a, p in zip(self.agents, self.points)
                if math.dist(p, centre) <= radius}

    def test_huge_max_results_allocates_little(self):
        tracemalloc.start()
        try:
            found = self.w.query_radius((0, 0), 3.0, max_results=2 ** 28)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLess(peak, 1 << 20)
        want = self.inside((0, 0), 3.0)  # distance exactly 3 included
        self.assertEqual(len(want), 29)
        self.assertEqual(set(found), want)
        self.assertEqual(len(found), len(want))
        self.assertEqual(self.w._query_capacity, 64)

    def test_buffer_grows_to_the_results(self):
        tracemalloc.start()
        try:
            found = self.w.query_radius((0, 0), 100.0, max_results=2 ** 28)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLess(peak, 1 << 20)
        self.assertEqual(set(found), set(self.agents))
        self.assertEqual(len(found), 441)
        self.assertEqual(self.w._query_capacity, 441)
        found = self.w.query_radius((0, 0), 100.0)
        self.assertEqual(set(found), set(self.agents))
        self.assertEqual(self.w._query_capacity, 441)

    def test_max_results_caps(self):
        for limit in (0, 1, 10, 64, 65, 300):
            found = self.w.query_radius((2, 3), 100.0, max_results=limit)
            self.assertEqual(len(found), limit)
            self.assertEqual(len(set(found)), limit)
            self.assertLessEqual(self.w._query_capacity, max(limit, 1))
            self.assertTrue(set(found) <= set(self.agents))
        few = self.w.query_radius((2, 3), 1.0, max_results=300)
        self.assertEqual(set(few), self.inside((2, 3), 1.0))


if __name__ == "__main__":
    unittest.main()
