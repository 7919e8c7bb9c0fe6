"""A local sweep inside a worker process does not keep that process from exiting.

joblib keeps its loky workers alive for 300 s after a parallel call. Python joins a multiprocessing worker's
children before that worker can exit, so a process pool that ran a sweep (nbdev_test running the notebooks, a
user's own pool) waited up to 300 s at shutdown: 276 s of a 333 s run of three notebooks on two workers. The
workers are now stopped among multiprocessing's exit finalizers, so later sweeps in the same process reuse them.
"""
import multiprocessing as mp
import time

from dplit.core import run_sweep


def _square(setting, rng):
    return setting * setting


def _child(queue):
    out = run_sweep(_square, [1, 2, 3], rng=0, n_jobs=2, progress=False)
    again = run_sweep(_square, [4], rng=0, n_jobs=2, progress=False)
    queue.put((out + again, len(mp.active_children())))


def test_sweep_in_a_worker_process_exits_at_once():
    # spawn, not fork: forking a pytest-xdist worker (which runs threads) can deadlock the child
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue,))
    t0 = time.perf_counter()
    proc.start()
    out, children = queue.get(timeout=240)
    # the bound: loky's idle timeout is 300 s, and a child that kept its workers could not exit before it;
    # 120 s leaves room for a slow, loaded machine to start the two workers and still tells the two apart
    proc.join(timeout=120)
    alive = proc.is_alive()
    if alive:
        proc.kill()
    assert out == [1, 4, 9, 16]
    assert children >= 1, "the sweep's workers were expected to stay up for reuse until exit"
    assert not alive, f"the worker process did not exit within {time.perf_counter() - t0:.0f} s"
