# SPDX-License-Identifier: MIT
"""Tests of the Python binding (python/throng.py).

Run from the repository root, against a built library:

    make lib
    python3 -m unittest discover -s python/tests        # or
    python3 python/tests/test_throng.py

THRONG_LIBRARY=path/to/libthrong.so picks another build. The NumPy tests
are skipped when NumPy is missing; the memoryview path is always tested,
and once more in a child interpreter where `import numpy` fails.

Numbers are checked against seed 000's vehicle worked by hand in double
precision (F = m (v_d - v) / dt, truncate, Euler), the struct mirrors
against the C compiler's own sizeof/offsetof, views against the C
pointers, and bad input against the status and sentence C gives.
"""

import ctypes
import gc
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
import weakref

# Which copy of the binding: the source tree's, or the installed one.
from binding_path import MODULE_DIR as PYTHON_DIR, REPO  # noqa: E402

import throng  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

needs_numpy = unittest.skipUnless(np is not None, "NumPy is not installed")

DT = 0.1


def truncate(x, limit):
    n = math.sqrt(sum(c * c for c in x))
    return list(x) if n <= limit else [c * limit / n for c in x]


def vehicle(p, v, force, mass, max_force, max_speed, dt):
    """Seed 000's vehicle in double: returns (p1, v1)."""
    f = truncate(force, max_force)
    v1 = truncate([v[a] + f[a] / mass * dt for a in range(len(v))],
                  max_speed)
    p1 = [p[a] + v1[a] * dt for a in range(len(p))]
    return p1, v1


def seek_force(p, v, target, mass, target_speed, dt):
    d = [target[a] - p[a] for a in range(len(p))]
    n = math.sqrt(sum(c * c for c in d))
    vd = [target_speed * c / n for c in d]
    return [mass * (vd[a] - v[a]) / dt for a in range(len(p))]


class Case(unittest.TestCase):
    def assertVecNear(self, got, want, tol=1e-5):
        self.assertEqual(len(got), len(want), (got, want))
        for g, w in zip(got, want):
            self.assertAlmostEqual(g, w, delta=tol, msg=(got, want))


# ------------------------------------------------------------------------
# The struct mirrors against the compiler
# ------------------------------------------------------------------------

STRUCTS = {
    "throng_world_def": throng.throng_world_def,
    "throng_step_stats": throng.throng_step_stats,
    "throng_agent": throng.throng_agent,
    "throng_agent_def": throng.throng_agent_def,
    "throng_agent_state": throng.throng_agent_state,
    "throng_columns": throng.throng_columns,
    "throng_flocking": throng.throng_flocking,
    "throng_wander": throng.throng_wander,
    "throng_avoidance": throng.throng_avoidance,
    "throng_motion": throng.throng_motion,
    "throng_layers": throng.throng_layers,
    "throng_group_def": throng.throng_group_def,
    "throng_object": throng.throng_object,
    "throng_flow_field_def": throng.throng_flow_field_def,
    "throng_seek_params": throng.throng_seek_params,
    "throng_pursue_params": throng.throng_pursue_params,
    "throng_wander_circle_params": throng.throng_wander_circle_params,
    "throng_path_params": throng.throng_path_params,
    "throng_flow_params": throng.throng_flow_params,
    "throng_avoid_params": throng.throng_avoid_params,
    "throng_contain_params": throng.throng_contain_params,
    "throng_leader_params": throng.throng_leader_params,
    "throng_unaligned_params": throng.throng_unaligned_params,
    "throng_behaviour": throng.throng_behaviour,
    "throng_allocator": throng.throng_allocator,
    "throng_object_info": throng.throng_object_info,
    "throng_world_load_def": throng.throng_world_load_def,
    "throng_group": throng.throng_group,
    "throng_obstacle_def": throng.throng_obstacle_def,
    "throng_wall_def": throng.throng_wall_def,
    "throng_path_def": throng.throng_path_def,
    "throng_nav_params": throng.throng_nav_params,
    "throng_nav_goal": throng.throng_nav_goal,
    "throng_nav_region": throng.throng_nav_region,
    "throng_nav_field_def": throng.throng_nav_field_def,
    "throng_nav_sample": throng.throng_nav_sample,
    "throng_nav_field_info": throng.throng_nav_field_info,
    "throng_agent_nav": throng.throng_agent_nav,
    "throng_nav_arrival": throng.throng_nav_arrival,
    "throng_recorder_def": throng.throng_recorder_def,
    "throng_record_stats": throng.throng_record_stats,
}


class TestLayout(Case):
    """Every mirrored struct has the size, alignment and field offsets the
    C compiler gives include/throng.h (skipped without a compiler)."""

    def test_layout_matches_header(self):
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
        header = os.path.join(REPO, "include", "throng.h")
        if not cc or not os.path.exists(header):
            self.skipTest("no C compiler or no include/throng.h")
        lines = ['#include <stdio.h>', '#include <stddef.h>',
                 '#include <stdalign.h>', '#include "throng.h"',
                 'int main(void) {']
        for name, cls in STRUCTS.items():
            lines.append('printf("%s #size %%zu\\n", sizeof(%s));'
                         % (name, name))
            lines.append('printf("%s #align %%zu\\n", alignof(%s));'
                         % (name, name))
            for field, _ in cls._fields_:
                lines.append('printf("%s %s %%zu\\n", offsetof(%s, %s));'
                             % (name, field, name, field))
        lines += ['return 0;', '}']
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "layout.c")
            exe = os.path.join(tmp, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines))
            subprocess.run([cc, "-std=c11", "-I" + os.path.dirname(header),
                            src, "-o", exe], check=True)
            out = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout
        seen = 0
        for line in out.splitlines():
            name, what, value = line.split()
            cls = STRUCTS[name]
            if what == "#size":
                want = ctypes.sizeof(cls)
            elif what == "#align":
                want = ctypes.alignment(cls)
            else:
                want = getattr(cls, what).offset
            self.assertEqual(int(value), want, "%s %s" % (name, what))
            seen += 1
        self.assertGreater(seen, 100)

    def test_union_member_sizes(self):
        # The largest member, padded to the union's alignment (8 since
        # object handles carry a 64-bit world id).
        b = throng.throng_behaviour()
        align = ctypes.alignment(type(b.u))
        largest = max(ctypes.sizeof(t) for _, t in type(b.u)._fields_)
        self.assertEqual(ctypes.sizeof(b.u),
                         (largest + align - 1) // align * align)


# ------------------------------------------------------------------------
# Worlds, agents and the hand-worked step
# ------------------------------------------------------------------------


class TestWorld(Case):
    def test_defaults_and_scalars(self):
        with throng.World() as w:
            self.assertEqual(w.dimensions, 2)
            self.assertEqual(w.boundary, throng.Boundary.UNBOUNDED)
            self.assertEqual(w.agent_count, 0)
            self.assertEqual(w.step_count, 0)
            self.assertGreater(w.bytes, 0)
            self.assertEqual(w.last_error, "")
            a = w.add_agent()
            d = a.definition()
            self.assertEqual(d, dict(position=(0.0, 0.0),
                                     velocity=(0.0, 0.0), mass=1.0,
                                     max_force=10.0, max_speed=1.0,
                                     radius=0.25, group=w.default_group,
                                     host_key=0))
            self.assertEqual(len(w), 1)
            self.assertEqual(a.group, w.default_group)
            self.assertEqual(w.default_group.name, "default")
        self.assertTrue(throng.version().startswith("0."))

    def test_canonical_order_export_import(self):
        """Agents moved into a second world by state, in another order,
        step to the same bits there under canonical order."""
        def make():
            w = throng.World(boundary="periodic", box=(12, 12), threads=1)
            w.canonical_order = True
            return w
        with make() as a, make() as b:
            self.assertTrue(a.canonical_order)
            self.assertEqual(a.definition_hash, b.definition_hash)
            self.assertEqual(a.settings().box_size[0], 12.0)
            wander = dict(weight=0.5, max_turn_rate=0.3,
                          max_turn_change=0.05)
            g = a.create_group(wander=wander)
            b.create_group(wander=wander)
            for k in range(1, 200):
                a.add_agent(position=((k * 7.3) % 12, (k * 3.1) % 12),
                            velocity=(0.5, 0.2), group=g, host_key=k)
            for agent in reversed(a.agents()):
                b.import_agent(a.export_agent(agent))
            a.step(DT, 20)
            b.step(DT, 20)
            for k in (1, 50, 199):
                sa = a.export_agent(a.find_agent(k))
                sb = b.export_agent(b.find_agent(k))
                self.assertEqual(bytes(sa), bytes(sb))
            state = a.export_agent(a.find_agent(1))
            state.host_key = 1000
            state.position[0] = float("nan")
            with self.assertRaises(throng.ThrongError):
                b.import_agent(state)

    def test_neighbour_skin(self):
        """Neighbour lists kept across ticks change no agent's state;
        a bad skin is refused and changes nothing."""
        def run(skin):
            with throng.World(neighbour_radius=3.0, threads=1) as w:
                w.neighbour_skin = skin
                self.assertEqual(w.neighbour_skin, skin)
                g = w.create_group(avoidance=dict(mode="orca",
                                                  time_horizon=2.0))
                g.add_behaviour("seek", source="fixed_point",
                                point=(5.0, 5.0, 0.0))
                for k in range(60):
                    w.add_agent(position=((k * 7.3) % 10, (k * 3.1) % 10),
                                radius=0.3, max_speed=1.0, group=g,
                                host_key=k + 1)
                w.step(DT, 30)
                if skin > 0:
                    for bad in (float("nan"), -1.0, 3.5):
                        with self.assertRaises(throng.ThrongError):
                            w.neighbour_skin = bad
                    self.assertEqual(w.neighbour_skin, skin)
                return [tuple(w.find_agent(k + 1).position)
                        for k in range(60)]
        self.assertEqual(run(0.0), run(1.0))

    def test_import_and_remove_agents_in_one_call(self):
        """import_agents and remove_agents give the rows, handles and
        bits of import_agent and remove one at a time; a refused batch
        changes nothing."""
        def make():
            w = throng.World(boundary="periodic", box=(12, 12), threads=1)
            w.canonical_order = True
            return w
        with make() as src, make() as a, make() as b:
            for k in range(1, 120):
                src.add_agent(position=((k * 7.3) % 12, (k * 3.1) % 12),
                              velocity=(0.5, 0.2), host_key=k,
                              mass=1.0 + (k % 3))
            src.step(DT, 5)
            states = [src.export_agent(x) for x in src.agents()]
            one = [a.import_agent(st) for st in states]
            many = b.import_agents(states)
            self.assertEqual([x.index for x in one],
                             [x.index for x in many])
            self.assertEqual(a.hash, b.hash)
            a_gone = [a.find_agent(k) for k in range(3, 120, 5)]
            for x in a_gone:
                a.remove(x)
            b.remove_agents([b.find_agent(k) for k in range(3, 120, 5)])
            self.assertEqual(len(a), len(b))
            a.step(DT, 5)
            b.step(DT, 5)
            self.assertEqual(a.hash, b.hash)
            before, n = b.hash, len(b)
            bad = [src.export_agent(src.find_agent(k)) for k in (1, 2)]
            bad[0].host_key, bad[1].host_key = 500, 501
            bad[1].velocity[0] = float("nan")
            with self.assertRaises(throng.ThrongError):
                b.import_agents(bad)
            x = b.find_agent(1)
            with self.assertRaises(throng.ThrongError):
                b.remove_agents([x, x])
            self.assertEqual((b.hash, len(b)), (before, n))

    def test_periodic_box_and_wrap(self):
        with throng.World(boundary="periodic", box=(10, 10)) as w:
            a = w.add_agent(position=(9.95, 5), velocity=(1, 0))
            w.step(DT)
            x, y = a.position
            self.assertAlmostEqual(x, 0.05, delta=1e-5)
            self.assertEqual(w.box, (10.0, 10.0))

    def test_seek_step_matches_seed_formula(self):
        """Seed 000 by hand: p = (1, 2), v = (0.5, 0), m = 2, target (4, 6),
        s_t = 0.5 * max speed 2 = 1: v_d = (0.6, 0.8), F = m (v_d - v) /
        dt = (2, 16); untruncated, v1 = v_d and p1 = (1.06, 2.08)."""
        with throng.World(threads=1) as w:
            g = w.create_group(combine="weighted_sum")
            self.assertEqual(g.add_behaviour("seek", speed_factor=0.5), 0)
            a = w.add_agent(position=(1, 2), velocity=(0.5, 0), mass=2,
                            max_force=1e6, max_speed=2, group=g,
                            target_point=(4, 6))
            self.assertEqual(a.target_point, (4.0, 6.0))
            w.step(DT)
            F = seek_force([1, 2], [0.5, 0], [4, 6], 2, 1.0, DT)
            self.assertVecNear(F, [2, 16], 1e-9)
            p1, v1 = vehicle([1, 2], [0.5, 0], F, 2, 1e6, 2, DT)
            self.assertVecNear(a.velocity, v1)
            self.assertVecNear(a.position, p1, 1e-6)
            self.assertVecNear(a.position, [1.06, 2.08], 1e-6)
            self.assertVecNear(a.heading, [0.6, 0.8])
            self.assertEqual(w.step_count, 1)

    def test_seek_step_truncated(self):
        """From rest towards (3, 4), m = 2, max force 1: F_h = (12, 16) is
        truncated to (0.6, 0.8), v1 = F / m dt = (0.03, 0.04); a second
        step computed the same way from the first's state."""
        with throng.World(threads=1) as w:
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("seek")
            a = w.add_agent(mass=2, max_force=1, max_speed=1, group=g,
                            target_point=(3, 4))
            p, v = [0.0, 0.0], [0.0, 0.0]
            for step in range(2):
                w.step(DT)
                F = seek_force(p, v, [3, 4], 2, 1.0, DT)
                p, v = vehicle(p, v, F, 2, 1, 1, DT)
                if step == 0:
                    self.assertVecNear(v, [0.03, 0.04], 1e-12)
                self.assertVecNear(a.velocity, v, 1e-6)
                self.assertVecNear(a.position, p, 1e-6)

    def test_seek_fixed_point_3d(self):
        """3D, the behaviour's own point: p = 0, v = (0, 0, 1), target
        (2, -1, 2) at distance 3, s_t = 1.5: v_d = (1, -0.5, 1)."""
        with throng.World(dimensions=3, threads=1) as w:
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("seek", source="fixed_point", point=(2, -1, 2))
            b = g.get_behaviour(0)
            self.assertEqual(b["source"], throng.TargetSource.FIXED_POINT)
            a = w.add_agent(position=(0, 0, 0), velocity=(0, 0, 1),
                            mass=2, max_force=1e6, max_speed=1.5, group=g)
            w.step(DT)
            self.assertVecNear(a.velocity, [1, -0.5, 1])
            fwd, up, side = a.basis
            self.assertAlmostEqual(sum(c * c for c in fwd), 1.0, delta=1e-6)
            self.assertAlmostEqual(sum(f * u for f, u in zip(fwd, up)), 0.0,
                                   delta=1e-6)

    def test_agent_setters_getters(self):
        with throng.World(dimensions=3) as w:
            g = w.create_group(name="walkers")
            a = w.add_agent(position=(1, 2, 3), host_key=42)
            b = w.add_agent(position=(4, 5, 6))
            a.velocity = (0.1, 0.2, 0.3)
            a.mass, a.max_force, a.max_speed, a.radius = 3, 5, 2, 0.5
            self.assertVecNear(a.velocity, [0.1, 0.2, 0.3], 1e-7)
            self.assertEqual((a.mass, a.max_force, a.max_speed, a.radius),
                             (3.0, 5.0, 2.0, 0.5))
            a.group = "walkers"
            self.assertEqual(a.group, g)
            self.assertEqual(a.group.name, "walkers")
            a.group = None
            self.assertEqual(a.group, w.default_group)
            a.group = g
            self.assertEqual(w.group("walkers"), g)
            self.assertEqual(w.find_agent(42), a)
            a.host_key = 7
            self.assertEqual(w.find_agent(7), a)
            a.progress = 5
            self.assertEqual(a.progress, 5)
            self.assertIsNone(a.target_agent)
            a.target_agent = b
            self.assertEqual(a.target_agent, b)
            a.target_agent = None
            self.assertIsNone(a.target_agent)
            self.assertEqual(w.agent_at(a.index), a)
            self.assertEqual(set(w.agents()), {a, b})
            b.remove()
            self.assertFalse(b.valid)
            self.assertTrue(a.valid)
            self.assertEqual(w.agent_count, 1)

    def test_stats(self):
        with throng.World(threads=1) as w:
            for i in range(10):
                w.add_agent(position=(i * 0.3, 0))
            w.step(DT)
            s = w.stats()
            self.assertEqual(s.step, 1)
            self.assertEqual(s.agents, 10)
            self.assertEqual(s.threads, 1)
            self.assertIsInstance(s.simd, str)
            self.assertGreaterEqual(s.total_seconds, 0.0)

    def test_query_radius_matches_brute_force(self):
        rng = random.Random(3)
        with throng.World(neighbour_radius=2.0) as w:
            agents = [w.add_agent(position=(rng.uniform(0, 10),
                                            rng.uniform(0, 10)))
                      for _ in range(400)]
            w.step(DT)  # rows reordered; the handles still hold
            centre, r = (5.0, 5.0), 3.0
            want = {a for a in agents
                    if math.dist(a.position, centre) <= r}
            self.assertGreater(len(want), 64)  # the buffer must regrow
            got = w.query_radius(centre, r)
            self.assertEqual(len(got), len(want))
            self.assertEqual(set(got), want)
            self.assertEqual(len(w.query_radius(centre, r, max_results=5)),
                             5)
            self.assertEqual(w.query_radius((100, 100), 1.0), [])


# ------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------


class TestSimd(Case):
    """World(simd=...) mirrors throng_world_def.simd."""

    NAMES = ("scalar", "sse2", "avx2", "avx512", "neon", "wasm")

    def test_auto_runs_the_best_path(self):
        best = throng.simd_best()
        self.assertIn(best, self.NAMES)
        self.assertTrue(throng.simd_supported("auto"))
        self.assertTrue(throng.simd_supported(best))
        with throng.World() as w:
            self.assertEqual(w.simd, best)
            w.add_agent(velocity=(0.5, 0))
            w.step(DT)
            self.assertEqual(w.stats().simd, best)
        with throng.World(simd=throng.Simd.AUTO) as w:
            self.assertEqual(w.simd, best)

    def test_named_paths(self):
        supported = 0
        for name in self.NAMES:
            if throng.simd_supported(name):
                supported += 1
                with throng.World(dimensions=3, simd=name) as w:
                    self.assertEqual(w.simd, name)
                    w.add_agent(velocity=(0.5, 0, 0.1))
                    w.step(DT)
                    self.assertEqual(w.stats().simd, name)
            else:
                with self.assertRaises(throng.UnsupportedError) as cm:
                    throng.World(simd=name)
                self.assertEqual(cm.exception.status,
                                 throng.Status.ERR_UNSUPPORTED)
                self.assertIn("simd=" + name, str(cm.exception))
        self.assertGreaterEqual(supported, 1)  # scalar, everywhere
        # No machine has both: one of them is refused.
        self.assertFalse(throng.simd_supported("neon") and
                         throng.simd_supported("sse2"))

    def test_same_state_on_every_path(self):
        hashes = {}
        for name in self.NAMES:
            if not throng.simd_supported(name):
                continue
            with throng.World(simd=name, seed=5) as w:
                rng = random.Random(3)
                for _ in range(200):
                    w.add_agent(position=(rng.uniform(0, 8),
                                          rng.uniform(0, 8)),
                                velocity=(rng.uniform(-1, 1),
                                          rng.uniform(-1, 1)))
                w.step(DT, steps=5)
                hashes[name] = w.hash
        self.assertEqual(len(set(hashes.values())), 1, hashes)

    def test_bad_simd(self):
        with self.assertRaises(throng.OutOfRangeError):
            throng.World(simd="avx3")
        with self.assertRaises(throng.OutOfRangeError):
            throng.World(simd=7)
        with self.assertRaises(throng.OutOfRangeError):
            throng.simd_supported("sse5")

    def test_environment_is_ignored(self):
        # The library reads no THRONG_SIMD: a child with it set still runs
        # the best path.
        other = "sse2" if throng.simd_best() == "scalar" else "scalar"
        env = dict(os.environ, THRONG_SIMD=other,
                   THRONG_LIBRARY=throng.library_path)
        code = ("import sys; sys.path.insert(0, %r); import throng; "
                "print(throng.World().simd)" % PYTHON_DIR)
        out = subprocess.run([sys.executable, "-c", code], env=env,
                             check=True, capture_output=True,
                             text=True).stdout.strip()
        self.assertEqual(out, throng.simd_best())


class TestErrors(Case):
    def assertRefused(self, w, cls, status, words, fn, *args, **kw):
        count, state = w.agent_count, w.hash
        with self.assertRaises(cls) as cm:
            fn(*args, **kw)
        e = cm.exception
        self.assertIsInstance(e, throng.ThrongError)
        self.assertEqual(e.status, status)
        self.assertIn(words, str(e))
        self.assertEqual(str(e), w.last_error)
        self.assertEqual(e.status_string, throng.status_string(status))
        # A refused call leaves the world as it was.
        self.assertEqual((w.agent_count, w.hash), (count, state))
        return e

    def test_negative_mass(self):
        with throng.World() as w:
            e = self.assertRefused(
                w, throng.OutOfRangeError, throng.Status.ERR_OUT_OF_RANGE,
                "mass must be > 0, got -1", w.add_agent, mass=-1)
            self.assertIsInstance(e, ValueError)
            a = w.add_agent()
            self.assertRefused(w, throng.OutOfRangeError, 3, "mass",
                               setattr, a, "mass", -1.0)

    def test_not_finite(self):
        with throng.World() as w:
            nan = float("nan")
            self.assertRefused(w, throng.NotFiniteError,
                               throng.Status.ERR_NOT_FINITE, "throng_agent",
                               w.add_agent, position=(nan, 0))
            a = w.add_agent()
            self.assertRefused(w, throng.NotFiniteError, 2, "throng_agent",
                               setattr, a, "velocity", (0, float("inf")))
            self.assertRefused(w, throng.NotFiniteError, 2, "step",
                               w.step, nan)
            self.assertRefused(w, throng.OutOfRangeError, 3, "step",
                               w.step, -1.0)

    def test_stale_handle(self):
        with throng.World() as w:
            a = w.add_agent()
            a.remove()
            e = self.assertRefused(w, throng.StaleHandleError,
                                   throng.Status.ERR_STALE_HANDLE,
                                   "throng_agent_get_position",
                                   getattr, a, "position")
            self.assertTrue(e.message)
            self.assertRefused(w, throng.StaleHandleError, 4, "",
                               w.remove, a)
            with throng.World() as other:
                b = other.add_agent()
                # A handle of another world is refused by the binding
                # before C sees it, and by C too.
                with self.assertRaises(throng.StaleHandleError) as cm:
                    w.remove(b)
                self.assertIn("another world", str(cm.exception))
                self.assertEqual(throng.lib.throng_agent_remove(w._ptr, b._c),
                                 throng.Status.ERR_STALE_HANDLE)

    def test_other_statuses(self):
        with throng.World() as w:
            w.add_agent(host_key=9)
            self.assertRefused(w, throng.DuplicateKeyError,
                               throng.Status.ERR_DUPLICATE_KEY, "",
                               w.add_agent, host_key=9)
            self.assertRefused(w, throng.NotFoundError,
                               throng.Status.ERR_NOT_FOUND, "",
                               w.find_agent, 10)
            gone = w.create_group()
            gone.remove()
            self.assertRefused(w, throng.StaleHandleError,
                               throng.Status.ERR_STALE_HANDLE, "group",
                               w.add_agent, group=gone)
            w.create_group(name="g")
            self.assertRefused(w, throng.DuplicateKeyError, 6, "",
                               w.create_group, name="g")
            self.assertRefused(w, throng.NotFoundError, 7, "",
                               w.group, "nobody")
            g = w.create_group()
            for _ in range(throng.MAX_BEHAVIOURS):
                g.add_behaviour("seek")
            self.assertRefused(w, throng.CapacityError,
                               throng.Status.ERR_CAPACITY, "",
                               g.add_behaviour, "seek")
            self.assertRefused(w, throng.OutOfRangeError, 3, "",
                               w.add_obstacle_sphere, (0, 0), -1)

    def test_python_side_refusals(self):
        with throng.World(dimensions=3) as w:
            with self.assertRaises(throng.OutOfRangeError):
                w.add_agent(position=(1, 2))  # 2 numbers in 3D
            with self.assertRaises(throng.OutOfRangeError):
                w.add_agent(host_key=-1)  # would wrap in a uint64
            with self.assertRaises(TypeError):
                w.add_agent(position="abc")
            g = w.create_group()
            with self.assertRaises(TypeError):
                g.add_behaviour("seek", no_such_field=1)
            with self.assertRaises(throng.OutOfRangeError):
                g.add_behaviour("teleport")
            with self.assertRaises(TypeError):
                w.create_group(flocking=dict(cohesion=1))
            with self.assertRaises(throng.OutOfRangeError):
                w.create_flow_field((0, 0, 0), 1, (2, 2, 2), [0.0] * 5)
            self.assertEqual(w.agent_count, 0)

    def test_world_create_refused(self):
        with self.assertRaises(throng.OutOfRangeError) as cm:
            throng.World(dimensions=4)
        self.assertEqual(cm.exception.status, 3)
        self.assertIn("throng_world_create", str(cm.exception))
        with self.assertRaises(throng.OutOfRangeError):
            throng.World(boundary="periodic", box=(2, 2))  # < 3 radii
        with self.assertRaises(throng.NotFiniteError):
            throng.World(neighbour_radius=float("nan"))
        with self.assertRaises(throng.OutOfRangeError):
            throng.World(boundary="toroidal")

    def test_closed_world(self):
        w = throng.World()
        a = w.add_agent()
        g = w.create_group()
        w.close()
        w.close()  # idempotent
        self.assertTrue(w.closed)
        self.assertFalse(a.valid)
        for fn in (lambda: a.position, lambda: w.step(DT),
                   lambda: w.agent_count, lambda: g.flocking,
                   lambda: w.columns()):
            with self.assertRaises(ValueError):
                fn()
        with throng.World() as w2:
            pass
        self.assertTrue(w2.closed)


# ------------------------------------------------------------------------
# Zero-copy columns
# ------------------------------------------------------------------------


def memoryview_address(view):
    return ctypes.addressof(view.obj)


class TestColumns(Case):
    def make(self, dims=2):
        w = throng.World(dimensions=dims, threads=1)
        agents = [w.add_agent(position=[i * 2.0 + 0.5] * dims,
                              velocity=[0.5] + [0.0] * (dims - 1))
                  for i in range(5)]
        return w, agents

    def check_rows(self, w, c, get):
        for i in range(c.count):
            a = w.agent_at(i)
            for axis, name in enumerate(("px", "py", "pz")[:c.dims]):
                self.assertEqual(get(c, name, i), a.position[axis])

    def test_memoryview_columns(self):
        w, agents = self.make()
        with w:
            c = w.columns(numpy=False)
            self.assertFalse(c.numpy)
            self.assertEqual(c.count, 5)
            self.assertIsNone(c.pz)
            self.assertIsNone(c.ux)
            for name in ("px", "py", "vx", "vy", "fx", "fy"):
                view = getattr(c, name)
                self.assertIsInstance(view, memoryview)
                self.assertEqual((view.format, view.itemsize, len(view)),
                                 ("f", 4, 5))
                self.assertTrue(view.readonly)
                # Zero-copy: the view is the C column itself.
                self.assertEqual(memoryview_address(view), c.address(name))
            self.check_rows(w, c, lambda c, n, i: getattr(c, n)[i])
            with self.assertRaises(TypeError):
                c.px[0] = 1.0
            # A setter writes in place: the same view sees it.
            px = c.px
            row = agents[3].index
            agents[3].position = (123.0, 4.0)
            self.assertEqual(px[row], 123.0)
            self.assertTrue(c.valid)
            # After a step, the views show the new state in the new row
            # order; so do views fetched again.
            w.step(DT)
            self.assertTrue(c.valid)
            self.check_rows(w, c, lambda c, n, i: getattr(c, n)[i])
            self.assertEqual(px.tolist(), c.px.tolist())
            c2 = w.columns(numpy=False)
            self.assertEqual(c2.px.tolist(), c.px.tolist())
            self.check_rows(w, c2, lambda c, n, i: getattr(c, n)[i])
            self.assertEqual(c2.vx[agents[0].index], 0.5)
            self.assertAlmostEqual(c2.px[agents[0].index], 0.55, delta=1e-6)
            # positions_copy works either way
            copy = w.positions_copy()
            self.assertEqual(len(copy), 5)
            # An add changes the row count: the Columns is stale.
            w.add_agent()
            self.assertFalse(c.valid)
            with self.assertRaises(throng.StaleColumnsError):
                c.px

    def test_memoryview_empty_and_3d(self):
        with throng.World(dimensions=3) as w:
            c = w.columns(numpy=False)
            self.assertEqual((c.count, len(c.px), len(c.uz)), (0, 0, 0))
        w, agents = self.make(3)
        with w:
            c = w.columns(numpy=False)
            self.assertEqual(len(c.pz), 5)
            self.assertEqual(len(c.positions), 3)
            self.assertEqual(c.uz[0], 1.0)  # +x heading, up +z
            self.check_rows(w, c, lambda c, n, i: getattr(c, n)[i])

    @needs_numpy
    def test_numpy_columns(self):
        w, agents = self.make()
        with w:
            c = w.columns()
            self.assertTrue(c.numpy)
            for name in ("px", "py", "vx", "vy", "fx", "fy"):
                a = getattr(c, name)
                self.assertIsInstance(a, np.ndarray)
                self.assertEqual((a.dtype, a.shape), (np.float32, (5,)))
                self.assertFalse(a.flags.writeable)
                self.assertEqual(a.ctypes.data, c.address(name))
            with self.assertRaises(ValueError):
                c.px[0] = 1.0
            px, py = w.positions
            self.assertEqual(px.ctypes.data, c.address("px"))
            self.check_rows(w, c, lambda c, n, i: float(getattr(c, n)[i]))
            row = agents[2].index
            agents[2].position = (-7.0, 1.0)
            self.assertEqual(c.px[row], np.float32(-7.0))
            before = w.positions_copy()
            w.step(DT)
            self.assertTrue(c.valid)
            c2 = w.columns()
            self.assertEqual(c2.px.ctypes.data, c.address("px"))
            self.assertTrue(np.array_equal(c.px, c2.px))
            w.remove(agents[0])
            with self.assertRaises(throng.StaleColumnsError):
                c.px
            agents[0] = w.add_agent(position=(0.5, 0.5))
            c2 = w.columns()
            after = w.positions_copy()
            self.assertEqual(after.shape, (5, 2))
            self.assertEqual(after.dtype, np.float32)
            for i in range(5):
                a = w.agent_at(i)
                self.assertEqual(tuple(after[i]), a.position)
                self.assertEqual(c2.px[i], after[i, 0])
            # The copy does not follow the world.
            self.assertFalse(np.shares_memory(after, c2.px))
            self.assertEqual(before.shape, (5, 2))
            self.assertEqual(w.velocities_copy().shape, (5, 2))
            self.assertEqual(w.headings_copy().shape, (5, 2))

    @needs_numpy
    def test_views_outlive_world(self):
        w, agents = self.make()
        del agents
        ref = weakref.ref(w)
        px = w.columns().px
        want = px.copy()
        del w
        gc.collect()
        # The view holds its column's memory, not the world: the world
        # was destroyed, and the view still reads the values it had.
        self.assertIsNone(ref())
        self.assertTrue(np.array_equal(px, want))

    def test_del_without_close(self):
        w = throng.World()
        w.add_agent()
        ref = weakref.ref(w)
        del w
        gc.collect()
        self.assertIsNone(ref())


NO_NUMPY_SCRIPT = r"""
import sys
sys.modules["numpy"] = None  # makes `import numpy` fail
sys.path.insert(0, sys.argv[1])
import throng
assert not throng.have_numpy
with throng.World(threads=1) as w:
    g = w.create_group(combine="weighted_sum")
    field = w.create_flow_field((0, 0), 1.0, (3, 2), [[1, 0]] * 6)
    g.add_behaviour("follow_flow", field=field)
    a = w.add_agent(position=(1, 0.5), mass=2, max_force=1e6, group=g)
    c = w.columns()
    assert isinstance(c.px, memoryview) and c.px.format == "f"
    assert c.px.tolist() == [1.0]
    w.step(0.1)
    c = w.columns()
    assert abs(c.vx[0] - 1.0) < 1e-6 and c.vy[0] == 0.0, c.vx.tolist()
    assert w.positions_copy() == [a.position]
    try:
        w.columns(numpy=True)
    except ImportError:
        pass
    else:
        raise AssertionError("numpy=True without NumPy")
print("no-numpy ok")
"""


class TestLoading(Case):
    def test_search_order(self):
        saved = os.environ.pop("THRONG_LIBRARY", None)
        try:
            found = [os.path.normpath(p) for p in throng._candidates()]
            # An installed package's own copy first; then the build
            # beside the binding (this tree's, for the source tree's).
            packaged = os.path.join(PYTHON_DIR, "throng.libs")
            soname = "libthrong.so.0.%d" % throng._ABI_MIN_MINOR
            want = [os.path.join(packaged, soname)] \
                if os.path.isdir(packaged) else []
            want.append(os.path.normpath(
                os.path.join(PYTHON_DIR, os.pardir, "build", "libthrong.so")))
            self.assertEqual(found[:len(want)], want)
            if PYTHON_DIR == os.path.join(REPO, "python"):
                self.assertEqual(want, [os.path.join(REPO, "build",
                                                     "libthrong.so")])
            self.assertIn(soname, found)
            os.environ["THRONG_LIBRARY"] = "/x/libthrong.so"
            self.assertEqual(throng._candidates(), ["/x/libthrong.so"])
        finally:
            os.environ.pop("THRONG_LIBRARY", None)
            if saved is not None:
                os.environ["THRONG_LIBRARY"] = saved

    def test_package_loads_its_own_library(self):
        """An installed package loads the library it carries, under its
        soname, whenever THRONG_LIBRARY is not set."""
        packaged = os.path.join(PYTHON_DIR, "throng.libs",
                                "libthrong.so.0.%d" % throng._ABI_MIN_MINOR)
        if not os.path.isdir(os.path.dirname(packaged)):
            self.skipTest("the binding of the source tree, not a package")
        env = dict(os.environ)
        env.pop("THRONG_LIBRARY", None)
        out = subprocess.run(
            [sys.executable, "-c", "import sys; sys.path.insert(0, "
             "sys.argv[1]); import throng; print(throng.library_path)",
             PYTHON_DIR], capture_output=True, text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), packaged)

    def test_bad_library_path_is_an_import_error(self):
        out = subprocess.run(
            [sys.executable, "-c", "import sys; sys.path.insert(0, "
             "sys.argv[1]); import throng", PYTHON_DIR],
            capture_output=True, text=True,
            env=dict(os.environ, THRONG_LIBRARY="/nonexistent/libthrong.so"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("THRONG_LIBRARY", out.stderr)
        self.assertIn("/nonexistent/libthrong.so (no such file)", out.stderr)


class TestBusy(Case):
    def test_busy_status(self):
        """THRONG_ERR_BUSY (14) raises BusyError; C records no sentence
        for it, so the message is the status's own, not the world's last
        error, which stays as it was."""
        self.assertEqual(throng.Status.ERR_BUSY, 14)
        self.assertIn("busy", throng.status_string(throng.Status.ERR_BUSY))
        with throng.World() as w:
            with self.assertRaises(throng.OutOfRangeError):
                w.step(-1.0)
            before = w.last_error
            with self.assertRaises(throng.BusyError) as cm:
                w._call(lambda world: throng.Status.ERR_BUSY)
            e = cm.exception
            self.assertIsInstance(e, throng.ThrongError)
            self.assertEqual(e.status, throng.Status.ERR_BUSY)
            self.assertEqual(str(e), throng.status_string(14))
            self.assertEqual(w.last_error, before)


class TestThreads(Case):
    def test_calls_from_two_python_threads(self):
        """The world's lock serialises calls: a thread stepping and one
        moving agents and reading errors do not interleave inside C."""
        import threading
        with throng.World() as w:
            agents = [w.add_agent(position=(i * 0.1, 0), velocity=(0.3, 0))
                      for i in range(200)]
            errors = []

            def stepper():
                try:
                    w.step(0.05, steps=200)
                except Exception as e:  # pragma: no cover
                    errors.append(e)

            def mover():
                try:
                    for k in range(2000):
                        agents[k % 200].position = (k * 0.01, 1.0)
                        try:
                            agents[k % 200].mass = -1
                        except throng.OutOfRangeError as e:
                            assert "mass" in str(e), str(e)
                except Exception as e:  # pragma: no cover
                    errors.append(e)
            threads = [threading.Thread(target=stepper),
                       threading.Thread(target=mover)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            self.assertEqual(w.step_count, 200)


class TestWithoutNumpy(Case):
    def test_child_interpreter_without_numpy(self):
        out = subprocess.run([sys.executable, "-c", NO_NUMPY_SCRIPT,
                              PYTHON_DIR], capture_output=True, text=True,
                             env=dict(os.environ,
                                      THRONG_LIBRARY=throng.library_path))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no-numpy ok", out.stdout)


# ------------------------------------------------------------------------
# Determinism
# ------------------------------------------------------------------------


def flock(threads, agents=300, steps=120):
    rng = random.Random(11)
    w = throng.World(boundary="periodic", box=(15, 15), threads=threads,
                     seed=5)
    g = w.create_group(name="flock", combine="priority",
                       flocking=dict(separation_weight=1.5,
                                     alignment_weight=1.0,
                                     cohesion_weight=1.0,
                                     separation_priority=2),
                       wander=dict(weight=0.3))
    g.add_behaviour("wander_circle", weight=0.5)
    for _ in range(agents):
        angle = rng.uniform(0, 2 * math.pi)
        w.add_agent(position=(rng.uniform(0, 15), rng.uniform(0, 15)),
                    velocity=(math.cos(angle) * 0.5, math.sin(angle) * 0.5),
                    group=g)
    w.step(1 / 30, steps=steps)
    return w


class TestDeterminism(Case):
    def test_one_and_two_threads_agree(self):
        with flock(1) as one, flock(2) as two:
            self.assertEqual(one.step_count, 120)
            self.assertEqual(one.hash, two.hash)
            self.assertEqual(two.stats().threads, 2)
            self.assertGreater(two.stats().neighbours, 1000)  # a real flock
            # Switching thread count mid-run changes nothing either.
            one.threads = 2
            two.threads = 1
            one.step(1 / 30, steps=10)
            two.step(1 / 30, steps=10)
            self.assertEqual(one.hash, two.hash)
            self.assertEqual(one.threads, 2)

    def test_state_differs_with_seed(self):
        with flock(1, agents=50, steps=1) as a:
            h = a.hash
            a.step(1 / 30)
            self.assertNotEqual(h, a.hash)


# ------------------------------------------------------------------------
# Behaviours and objects
# ------------------------------------------------------------------------


def dist_to_polyline(p, pts, closed):
    best = float("inf")
    n = len(pts)
    for i in range(n if closed else n - 1):
        a, b = pts[i], pts[(i + 1) % n]
        ab = [b[k] - a[k] for k in range(2)]
        ap = [p[k] - a[k] for k in range(2)]
        t = max(0.0, min(1.0, (ap[0] * ab[0] + ap[1] * ab[1]) /
                         (ab[0] ** 2 + ab[1] ** 2)))
        q = [a[k] + t * ab[k] for k in range(2)]
        best = min(best, math.dist(p, q))
    return best


class TestBehaviours(Case):
    def test_avoidance_round_trip(self):
        with throng.World(neighbour_radius=3.0) as w:
            g = w.create_group(avoidance=dict(mode="orca", time_horizon=4,
                                              responsibility=0.25))
            a = g.avoidance
            self.assertEqual(a["mode"], throng.AvoidanceMode.ORCA)
            self.assertEqual(a["time_horizon"], 4.0)
            self.assertEqual(a["responsibility"], 0.25)
            self.assertEqual(a["max_neighbours"], 10)
            g.set_avoidance(max_neighbours=4, range=2.5)
            self.assertEqual(g.avoidance["max_neighbours"], 4)
            self.assertEqual(g.avoidance["time_horizon"], 4.0)
            for bad in (dict(time_horizon=-1), dict(responsibility=1.5),
                        dict(range=5.0), dict(max_neighbours=0)):
                with self.assertRaises(throng.OutOfRangeError):
                    g.set_avoidance(**bad)
            with self.assertRaises(throng.NotFiniteError):
                g.set_avoidance(time_horizon=float("nan"))
            self.assertEqual(g.avoidance["max_neighbours"], 4)
            g.set_motion(max_turn_rate=1.5, min_speed=0.2)
            self.assertAlmostEqual(g.motion["max_turn_rate"], 1.5)
            with self.assertRaises(throng.OutOfRangeError):
                g.set_motion(min_speed=-1)
            g.set_motion(max_turn_rate=0, min_speed=0)
            self.assertEqual(g.layers, {"layer": 0, "mask": 0xFFFFFFFF})
            g.set_layers(layer=3, mask=0b1000)
            self.assertEqual(g.layers, {"layer": 3, "mask": 8})
            with self.assertRaises(throng.OutOfRangeError):
                g.set_layers(layer=32)
            self.assertEqual(g.layers["layer"], 3)
            g.set_layers(layer=0, mask=0xFFFFFFFF)
            ghost = w.create_group(layers=dict(layer=5, mask=0))
            self.assertEqual(ghost.layers, {"layer": 5, "mask": 0})
            # Two agents head-on pass each other without touching.
            g.add_behaviour("seek")
            a = w.add_agent(position=(-4, 0), radius=0.3, group=g)
            b = w.add_agent(position=(4, 0), radius=0.3, group=g)
            a.target_point = (4, 0)
            b.target_point = (-4, 0)
            closest = 8.0
            for _ in range(120):
                w.step(0.1)
                closest = min(closest, math.dist(a.position, b.position))
            self.assertGreaterEqual(closest, 0.6 * 0.99)
            self.assertGreater(a.position[0], 3.0)
            self.assertLess(b.position[0], -3.0)

    def test_group_recipe_round_trip(self):
        with throng.World(neighbour_radius=2.0) as w:
            flocking = dict(separation_weight=2,
                            separation_mode="inverse_distance",
                            cohesion_radius=1.5)
            g = w.create_group(name="r", combine="priority",
                               flocking=flocking,
                               wander=dict(weight=0.5, priority=3))
            f = g.flocking
            self.assertEqual(f["separation_weight"], 2.0)
            self.assertEqual(f["separation_mode"],
                             throng.SeparationMode.INVERSE_DISTANCE)
            self.assertEqual(f["cohesion_radius"], 1.5)
            self.assertEqual(g.wander["priority"], 3)
            g.set_flocking(alignment_weight=0.25)
            self.assertEqual(g.flocking["alignment_weight"], 0.25)
            self.assertEqual(g.flocking["separation_weight"], 2.0)
            g.set_wander(weight=0)
            self.assertEqual(g.wander["weight"], 0.0)
            g.set_combine(throng.CombineMode.WEIGHTED_SUM)
            with self.assertRaises(throng.OutOfRangeError):
                g.set_flocking(cohesion_radius=5.0)  # > neighbour radius
            g.add_behaviour("arrive", ramp="linear", source="fixed_point",
                            point=(3, 4),
                            weight=2, priority=-1, braking_distance=1.5)
            b = g.get_behaviour(0)
            self.assertEqual(b["kind"], throng.BehaviourKind.ARRIVE)
            self.assertEqual(b["ramp"], throng.ArriveRamp.LINEAR)
            self.assertEqual(b["point"], (3.0, 4.0))
            self.assertEqual((b["weight"], b["priority"]), (2.0, -1))
            self.assertEqual(b["braking_distance"], 1.5)
            g.set_behaviour(0, "flee", flee_range=2)
            self.assertEqual(g.behaviours[0]["kind"],
                             throng.BehaviourKind.FLEE)
            self.assertEqual(g.behaviour_count, 1)
            g.clear_behaviours()
            self.assertEqual(g.behaviour_count, 0)
            # A world of radius 0.5: unnamed default radii are clamped.
            with throng.World(neighbour_radius=0.5) as small:
                s = small.create_group(flocking=dict(cohesion_weight=1))
                self.assertEqual(s.flocking["alignment_radius"], 0.5)

    def test_path_following_stays_near_path(self):
        ring = [(10 * math.cos(2 * math.pi * i / 24),
                 10 * math.sin(2 * math.pi * i / 24)) for i in range(24)]
        with throng.World(threads=1) as w:
            path = w.create_path(ring, radius=1.0, closed=True)
            self.assertEqual(path.kind, "path")
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("follow_path", path=path, ahead=1.5)
            self.assertEqual(g.get_behaviour(0)["path"], path)
            a = w.add_agent(position=ring[0], velocity=(0, 1), max_speed=2,
                            max_force=4, group=g)
            worst, travelled, last = 0.0, 0.0, a.position
            for _ in range(600):
                w.step(0.05)
                p = a.position
                travelled += math.dist(p, last)
                last = p
                worst = max(worst, dist_to_polyline(p, ring, True))
            self.assertLess(worst, 1.5)
            self.assertGreater(travelled, 40)  # most of a lap and more
            self.assertGreater(a.progress, 0)
            # Removing the path leaves the behaviour quiet: the agent
            # coasts in a straight line.
            path.remove()
            v = a.velocity
            w.step(0.05)
            self.assertVecNear(a.velocity, v, 1e-6)

    def test_obstacle_avoidance(self):
        def run(avoid):
            with throng.World(threads=1) as w:
                centre = (10.0, 0.2)
                obstacle = w.add_obstacle_sphere(centre, 2.0)
                self.assertEqual(w.object_count, 1)
                g = w.create_group(combine="priority")
                if avoid:
                    g.add_behaviour("avoid_obstacles", priority=1,
                                    lookahead_time=1.5)
                g.add_behaviour("seek", source="fixed_point", point=(20, 0))
                a = w.add_agent(velocity=(1.5, 0), max_speed=1.5,
                                max_force=4, group=g)
                closest = float("inf")
                for _ in range(400):
                    w.step(0.05)
                    closest = min(closest, math.dist(a.position, centre))
                w.remove_object(obstacle)
                self.assertEqual(w.object_count, 0)
                return closest, a.position
        closest, end = run(True)
        self.assertGreater(closest, 2.0)
        self.assertGreater(end[0], 15.0)  # and it got past
        control, _ = run(False)
        self.assertLess(control, 2.0)

    def test_walls_boxes_and_flow(self):
        with throng.World(threads=1) as w:
            box = w.add_obstacle_box((1, 1), (2, 3))
            seg = w.add_wall_segment((0, 0), (5, 0))
            plane = w.add_wall_plane((0, -5), (0, 1))
            self.assertEqual([o.kind for o in (box, seg, plane)],
                             ["box", "segment", "plane"])
            self.assertEqual(w.object_count, 3)
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("contain", use_box=True, box_min=(-5, -5),
                            box_max=(5, 5), range=1.0)
            b = g.get_behaviour(0)
            self.assertTrue(b["use_box"])
            self.assertEqual(b["box_max"], (5.0, 5.0))
            # A uniform flow (0, 1), sampled anywhere: v_d = (0, 1) at
            # s_t = max speed 1; with force to spare v1 = v_d.
            if np is not None:
                vectors = np.tile(np.array([0, 1], np.float32), (2, 3, 1))
            else:
                vectors = [0, 1] * 6
            field = w.create_flow_field((0, 0), 1.0, (3, 2), vectors)
            f = w.create_group(combine="weighted_sum")
            f.add_behaviour("follow_flow", field=field)
            a = w.add_agent(position=(20, 20), mass=2, max_force=1e6,
                            group=f)
            w.step(DT)
            self.assertVecNear(a.velocity, [0, 1], 1e-6)
            self.assertVecNear(a.position, [20, 20.1], 1e-5)
            for o in (box, seg, plane, field):
                o.remove()
            self.assertEqual(w.object_count, 0)
            with self.assertRaises(throng.StaleHandleError):
                box.remove()  # already removed
        with throng.World(dimensions=3) as w3:
            with self.assertRaises(throng.ThrongError):
                w3.add_wall_segment((0, 0, 0), (1, 0, 0))  # 2D only
            w3.add_wall_plane((0, 0, 0), (0, 0, 1))

    def test_pursuit(self):
        with throng.World(threads=1) as w:
            g = w.create_group(combine="weighted_sum")
            g.add_behaviour("pursue")
            prey = w.add_agent(position=(5, 0), velocity=(0, 0.5))
            hunter = w.add_agent(group=g, max_speed=2, target_agent=prey)
            with self.assertRaises(throng.ThrongError):
                hunter.target_agent = hunter  # itself is refused
            d0 = math.dist(hunter.position, prey.position)
            w.step(0.1, steps=20)
            self.assertLess(math.dist(hunter.position, prey.position), d0)
            prey.remove()
            v = hunter.velocity
            w.step(0.1)  # the target is gone: quiet, the hunter coasts
            self.assertVecNear(hunter.velocity, v, 1e-6)


if __name__ == "__main__":
    unittest.main()
