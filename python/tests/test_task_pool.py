# SPDX-License-Identifier: MIT
"""Task pools: a step's parallel loops on Python threads
(throng_world_set_task_hooks).

The state after N steps must equal, to the bit, the state after the same
steps on one OpenMP thread, whichever pool runs them; the world must hold
its callbacks while C may call them; and nothing an executor does (a
submit that raises, a future that fails or is cancelled) may reach C: the
step still completes with the same state, and TaskPoolError says what
went wrong.
"""

import concurrent.futures
import gc
import threading
import unittest

# Which copy of the binding: the source tree's, or the installed one.
import binding_path  # noqa: E402,F401

import throng  # noqa: E402

STEPS = 6


def build(world, agents=3000):
    flock = world.create_group(
        flocking=dict(separation_weight=1.5, alignment_weight=1.0,
                      cohesion_weight=1.0), wander=dict(weight=0.3))
    for i in range(agents):
        world.add_agent(position=(0.5 + (i * 7) % 43 + 0.01 * (i % 17),
                                  0.5 + (i * 13) % 44 + 0.01 * (i % 23)),
                        velocity=(0.4, 0.1 * (i % 7 - 3)), group=flock)


def reference_hash():
    with throng.World(boundary="periodic", box=(45, 45), threads=1) as w:
        build(w)
        w.step(0.05, STEPS)
        return w.hash


class CountingExecutor(concurrent.futures.Executor):
    """Runs submissions on a thread pool and records the threads."""

    def __init__(self, workers):
        self.inner = concurrent.futures.ThreadPoolExecutor(workers)
        self.threads = set()
        self.lock = threading.Lock()

    def submit(self, fn, *args):
        def run():
            with self.lock:
                self.threads.add(threading.get_ident())
            return fn(*args)
        return self.inner.submit(run)

    def shutdown(self, wait=True, **kw):
        self.inner.shutdown(wait)


class RefusingExecutor(concurrent.futures.Executor):
    def submit(self, fn, *args):
        raise RuntimeError("this executor takes no work")


class FailingExecutor(concurrent.futures.Executor):
    """Futures that fail without running anything."""

    def submit(self, fn, *args):
        f = concurrent.futures.Future()
        f.set_exception(ValueError("lost on the way"))
        return f


class TestTaskPool(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.want = reference_hash()

    def run_with(self, pool, install_later=False):
        kw = {} if install_later else dict(task_pool=pool)
        with throng.World(boundary="periodic", box=(45, 45), **kw) as w:
            if install_later:
                w.task_pool = pool
            self.assertIs(w.task_pool, pool)
            build(w)
            w.step(0.05, STEPS)
            # A query that rebuilds the grid runs the hooks too.
            w.query_radius((20, 20), 3.0)
            return w.hash, w.stats()

    def test_same_state_on_any_pool(self):
        for workers in (1, 2, 3, 8):
            with throng.TaskPool(workers=workers) as pool:
                got, stats = self.run_with(pool)
                self.assertEqual(got, self.want, workers)
                self.assertEqual(stats.threads, workers)
        with throng.TaskPool(workers=4) as pool:
            self.assertEqual(self.run_with(pool, install_later=True)[0],
                             self.want)

    def test_ranges_run_on_the_executor(self):
        ex = CountingExecutor(3)
        try:
            pool = throng.TaskPool(workers=4, executor=ex)
            self.assertEqual(self.run_with(pool)[0], self.want)
            self.assertGreaterEqual(len(ex.threads), 1)
            self.assertNotIn(threading.get_ident(), ex.threads)
        finally:
            ex.shutdown()

    def test_callbacks_are_held_by_the_world(self):
        with throng.World(boundary="periodic", box=(45, 45)) as w:
            build(w)
            pool = throng.TaskPool(workers=3)
            w.task_pool = pool
            hooks = w._hooks
            del pool
            gc.collect()
            w.step(0.05, STEPS)
            self.assertEqual(w.hash, self.want)
            self.assertIs(w._hooks, hooks)
            w.task_pool.close()
            # Removing the pool: OpenMP threads again, nothing held.
            w.task_pool = None
            self.assertIsNone(w.task_pool)
            self.assertIsNone(w._hooks)
            w.step(0.05)
            self.assertEqual(w.step_count, STEPS + 1)

    def test_executor_failures_do_not_reach_c(self):
        for ex, cause in ((RefusingExecutor(), RuntimeError),
                          (FailingExecutor(), ValueError)):
            pool = throng.TaskPool(workers=3, executor=ex)
            with throng.World(boundary="periodic", box=(45, 45),
                              task_pool=pool) as w:
                build(w)
                for i in range(STEPS):
                    with self.assertRaises(throng.TaskPoolError) as cm:
                        w.step(0.05)
                    self.assertIsInstance(cm.exception.__cause__, cause)
                    self.assertIn("throng_world_step", str(cm.exception))
                # Every step completed, on the calling thread.
                self.assertEqual(w.step_count, STEPS)
                self.assertEqual(w.hash, self.want)

    def test_a_shut_down_pool(self):
        pool = throng.TaskPool(workers=2)
        with throng.World(boundary="periodic", box=(45, 45),
                          task_pool=pool) as w:
            build(w)
            w.step(0.05)
            pool.executor().shutdown()
            with self.assertRaises(throng.TaskPoolError):
                w.step(0.05, STEPS - 1)
            w.step(0.05, 0)
            self.assertEqual(w.step_count, 2)

    def test_step_from_inside_the_executor(self):
        # The stepping thread runs ranges itself, so a step submitted to
        # the pool's own one-thread executor cannot wait for itself.
        with throng.TaskPool(workers=2) as pool:
            def job():
                return self.run_with(pool)[0]
            got = pool.executor().submit(job).result(timeout=60)
            self.assertEqual(got, self.want)

    def test_bad_pools(self):
        for workers in (0, throng.MAX_WORKERS + 1):
            with self.assertRaises(throng.OutOfRangeError):
                throng.TaskPool(workers=workers)
        with self.assertRaises(TypeError):
            throng.World(task_pool=object())
        with throng.World() as w:
            with self.assertRaises(TypeError):
                w.task_pool = 4
            self.assertIsNone(w.task_pool)

    def test_snapshot_loads_without_hooks(self):
        with throng.TaskPool(workers=2) as pool:
            with throng.World(boundary="periodic", box=(45, 45),
                              task_pool=pool) as w:
                build(w)
                data = w.to_bytes()
            with throng.World.load(data) as v:
                self.assertIsNone(v.task_pool)
            with throng.World.load(data, task_pool=pool) as v:
                self.assertIs(v.task_pool, pool)
                v.step(0.05, STEPS)
                self.assertEqual(v.hash, self.want)


if __name__ == "__main__":
    unittest.main()
