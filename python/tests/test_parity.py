# SPDX-License-Identifier: MIT
"""C and Python give the same result for the same calls.

parity.c builds a scene through the C API, steps it and prints its state
hash, then makes a list of bad calls and prints each status and sentence.
This test builds the same scene through the binding, expects the same
hash (to the bit: throng_world_hash), and expects each bad call to raise
the class of that status with C's sentence, leaving the world as C's.
"""

import math
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# Which copy of the binding: the source tree's, or the installed one.
from binding_path import REPO  # noqa: E402

import throng  # noqa: E402

AGENTS, STEPS, DT = 120, 60, 0.05


def run_c():
    """parity.c's output lines, or None without a compiler."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc:
        return None
    library = os.path.abspath(throng.library_path)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "parity")
        base = [cc, "-std=c11", "-I" + os.path.join(REPO, "include"),
                os.path.join(HERE, "parity.c"), library,
                "-Wl,-rpath," + os.path.dirname(library), "-lm", "-o", exe]
        built = subprocess.run(base, capture_output=True, text=True)
        if built.returncode != 0:
            # A sanitizer build of the library needs its runtime linked.
            built = subprocess.run(base + ["-fsanitize=address,undefined"],
                                   capture_output=True, text=True)
        if built.returncode != 0:
            raise AssertionError("parity.c does not build:\n" +
                                 built.stderr)
        out = subprocess.run([exe], check=True, capture_output=True,
                             text=True).stdout
    return out.splitlines()


def python_scene(task_pool=None, save_at=None):
    """The scene; with save_at, saved after that many steps and continued
    in the world loaded from the snapshot."""
    w = throng.World(dimensions=2, boundary="periodic", box=(40, 40),
                     neighbour_radius=2.0, seed=9, threads=1,
                     task_pool=task_pool)
    w.add_obstacle(center=(20, 20), radius=2.0)
    w.add_obstacle(throng.ObstacleDef(kind="box", min=(5, 5), max=(8, 9)))
    w.add_wall(kind="plane", point=(0, 1), normal=(0, 2))
    path = w.add_path(points=[(3, 3), (30, 4), (28, 30)], radius=1.5,
                      closed=True)
    vectors = [(0.25 * (i % 4), -0.125 * (i // 4)) for i in range(12)]
    field = w.add_flow_field(origin=(10, 10), cell_size=3.0, size=(4, 3),
                             vectors=vectors)
    flock = w.create_group(
        name="flock", combine="priority",
        flocking=dict(separation_radius=0.8, separation_weight=1.5,
                      alignment_weight=1.0, cohesion_weight=1.0),
        wander=dict(weight=0.2))
    flock.add_behaviour("seek", weight=0.5, source="fixed_point",
                        point=(25, 25))
    flock.add_behaviour("avoid_obstacles")
    flock.add_behaviour("follow_flow", weight=0.3, field=field)
    walkers = w.create_group(name="walkers")
    walkers.add_behaviour("follow_path", path=path)
    agents = [w.add_agent(position=((i * 7) % 37 + 0.5, (i * 11) % 39 + 0.5),
                          velocity=(0.3, 0.05 * (i % 5 - 2)),
                          group=flock if i % 4 else walkers,
                          host_key=100 + i, max_speed=1.5)
              for i in range(AGENTS)]
    for i in range(STEPS):
        if i == save_at:
            loaded = throng.World.load(w.to_bytes(), task_pool=task_pool)
            w.close()
            w = loaded
            agents = [w.rebind(a) for a in agents]
            flock, path = w.rebind(flock), w.rebind(path)
        w.step(DT)
    return w, agents, flock, path


def python_bad_calls(w, agents, flock, points):
    """(name, callable) in parity.c's order."""
    def set_max_speed():
        agents[3].max_speed = -1.0

    def remove_twice():
        w.remove(agents[7])
        w.remove(agents[7])

    def target_self():
        agents[2].target_agent = agents[2]

    return [
        ("agent_mass", lambda: w.add_agent(mass=-1.0)),
        ("sphere_with_min", lambda: w.add_obstacle(min=(1, 0))),
        ("box_with_radius", lambda: w.add_obstacle(
            kind="box", min=(1, 1), max=(2, 2), radius=1.0)),
        ("segment_too_short", lambda: w.add_wall(a=(1, 0), b=(1, 0))),
        ("remove_group_in_use", flock.remove),
        ("remove_default_group", w.default_group.remove),
        ("step_zero", lambda: w.step(0.0)),
        ("step_nan", lambda: w.step(math.nan)),
        ("path_one_point", lambda: w.add_path(points=points[:1])),
        ("max_speed", set_max_speed),
        ("flocking_radius", lambda: flock.set_flocking(cohesion_radius=5)),
        ("remove_twice", remove_twice),
        ("flow_cell_size", lambda: w.add_flow_field(cell_size=0.0)),
        ("target_self", target_self),
    ]


class TestParity(unittest.TestCase):
    def test_same_hash_and_same_refusals(self):
        lines = run_c()
        if lines is None:
            self.skipTest("no C compiler")
        w, agents, flock, path = python_scene()
        with w:
            self.assertEqual(lines[0], "hash %d" % w.hash)
            calls = python_bad_calls(w, agents, flock, [(3, 3)])
            self.assertEqual(len(lines), len(calls) + 2)
            for (name, fn), line in zip(calls, lines[1:]):
                c_name, status, sentence = (line.split(" ", 2) + [""])[:3]
                self.assertEqual(c_name, name)
                self.assertNotEqual(int(status), 0, line)
                with self.assertRaises(throng.ThrongError) as cm:
                    fn()
                got = cm.exception
                self.assertEqual((int(got.status), str(got)),
                                 (int(status), sentence), name)
                self.assertIs(type(got),
                              throng._ERROR_CLASS[throng.Status(int(status))])
            self.assertEqual(lines[-1], "hash %d" % w.hash)

    def test_same_hash_on_a_task_pool_and_after_a_reload(self):
        lines = run_c()
        if lines is None:
            self.skipTest("no C compiler")
        with throng.TaskPool(workers=3) as pool:
            for save_at in (None, STEPS // 2):
                w, agents, flock, _ = python_scene(pool, save_at)
                with w:
                    self.assertEqual(lines[0], "hash %d" % w.hash, save_at)
                    self.assertEqual(agents[5].host_key, 105)
                    self.assertEqual(agents[5].group, flock)

if __name__ == "__main__":
    unittest.main()
