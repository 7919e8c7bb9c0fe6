"""dplit.core.run_sweep, the one runner of every sweep, audit and check: the same seed gives the same list for any number
of workers; task order is setting-major; bad arguments are refused by name; a named scheduler without the
`distributed` extra is an error that says what to install. The audit harness on top of it: its counts do not
depend on the workers either, and the chunked event count agrees with the whole-array indicator."""
import pickle
import sys
import threading

import numpy as np
import pytest

from dplit.audit import _event_mask, _indicator, audit
from dplit.core import DISTRIBUTED_HINT, run_sweep, spawn_rngs


def _task(setting, g):
    return setting, float(g.normal()), int(g.integers(2**62))


SETTINGS = ["a", "b", "c"]


def test_same_list_for_any_number_of_workers():
    local = run_sweep(_task, SETTINGS, repeats=3, rng=11, progress=False)
    assert [r[0] for r in local] == ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    assert len({r[2] for r in local}) == 9
    for n_jobs in (2, -1):
        assert run_sweep(_task, SETTINGS, repeats=3, rng=11, n_jobs=n_jobs, progress=False) == local


def test_task_i_draws_from_the_i_th_child_of_the_seed():
    out = run_sweep(_task, SETTINGS, repeats=2, rng=4, progress=False)
    kids = spawn_rngs(4, 6)
    assert out == [_task(SETTINGS[i // 2], kids[i]) for i in range(6)]
    assert run_sweep(_task, SETTINGS, rng=5, progress=False) != run_sweep(_task, SETTINGS, rng=6, progress=False)


def test_explicit_generators_are_used_as_given():
    gens = [np.random.default_rng(s) for s in (7, 8)]
    out = run_sweep(_task, ["x", "y"], rng=gens, n_jobs=2, progress=False)
    assert out == [_task("x", np.random.default_rng(7)), _task("y", np.random.default_rng(8))]


@pytest.mark.parametrize("kwargs,name", [
    (dict(task="f"), "task"), (dict(repeats=0), "repeats"), (dict(repeats=1.0), "repeats"),
    (dict(n_jobs=0), "n_jobs"), (dict(n_jobs=2.5), "n_jobs"), (dict(rng=[1, 2]), "rng"),
    (dict(rng=-1), "rng"), (dict(labels=["only one"]), "labels"), (dict(scheduler=8786), "scheduler"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    args = dict(task=_task, settings=SETTINGS) | kwargs
    with pytest.raises((TypeError, ValueError), match=name):
        run_sweep(**args, progress=False)


def test_scheduler_without_the_extra_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError) as exc:
        run_sweep(_task, SETTINGS, scheduler="tcp://127.0.0.1:8786", progress=False)
    assert DISTRIBUTED_HINT == 'pip install "dplit[distributed]"' and DISTRIBUTED_HINT in str(exc.value)


def _laplace(x, g, n):
    return x + g.laplace(0.0, 1.0, n)


def _coin_pair(x, g):
    return int(g.random() < 0.55 + 0.1 * x), int(g.integers(2))


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_audit_counts_do_not_depend_on_the_workers(n_jobs):
    kw = dict(epsilon=1.0, n_trials=40_000, vectorized=True, chunk_size=7_000, rng=3)
    a, b = audit(_laplace, 0.0, 1.0, **kw), audit(_laplace, 0.0, 1.0, **kw, n_jobs=n_jobs)
    assert a == b and a.passed
    kw = dict(epsilon=1.0, n_trials=3_000, kind="discrete", rng=4)
    assert audit(_coin_pair, 0, 1, **kw) == audit(_coin_pair, 0, 1, **kw, n_jobs=n_jobs)


def test_the_chunk_size_is_part_of_the_seed_meaning():
    kw = dict(epsilon=1.0, n_trials=40_000, vectorized=True, rng=3)
    assert audit(_laplace, 0.0, 1.0, **kw).counts != audit(_laplace, 0.0, 1.0, **kw, chunk_size=7_000).counts
    with pytest.raises(ValueError, match="chunk_size"):
        audit(_laplace, 0.0, 1.0, **kw, chunk_size=0)
    with pytest.raises(ValueError, match="kind"):
        audit(_laplace, 0.0, 1.0, **kw, kind="interval")


@pytest.mark.parametrize("neg", [False, True])
def test_chunk_event_mask_agrees_with_the_whole_array_indicator(neg):
    g = np.random.default_rng(0)
    ints = g.integers(0, 5, 1000)
    rows = g.integers(0, 2, (1000, 3))
    ragged = np.empty(1000, dtype=object)
    ragged[:] = [tuple(range(k)) for k in g.integers(0, 4, 1000)]
    floats = g.normal(size=1000)
    cases = [(ints, "discrete", [np.int64(2), np.int64(3)]), (rows, "discrete", [(0, 1, 1), (1, 1, 1)]),
             (ragged, "discrete", [(0, 1), ()]), (floats, "threshold", np.array([-0.3, 0.7]))]
    for s, kind, support in cases:
        for j in range(len(support)):
            want = _indicator(j + neg * len(support), s, kind, support)
            assert np.array_equal(_event_mask(s, kind, support[j], neg), want), (kind, j)
            assert want.sum() not in (0, len(s))  # the event is neither empty nor everything


def test_unpicklable_figure_is_dropped_with_a_note():
    from dplit.verify import Check, _run_check, VerifyRecord
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def func(full=False, rng=None):
        fig = plt.figure()
        fig.lock = threading.Lock()
        return VerifyRecord("demo", "c", "m", "t", True, 0.0, figure=fig)

    chk = Check("demo", "c", "", func, __name__)
    ss = np.random.SeedSequence(0)
    assert _run_check(False, False, chk, ss).figure is not None
    rec = _run_check(False, True, chk, ss)
    assert rec.figure is None and "figure dropped" in rec.note
    pickle.dumps(rec)
    plt.close("all")


def test_checks_give_the_same_records_on_workers():
    from dplit.verify import run_checks
    names = ["exponential_mechanism_softmax", "analytic_gaussian"]
    strip = lambda r: {k: v for k, v in r.as_dict().items() if k != "seconds"}
    a = run_checks(names, seed=3, progress=False)
    b = run_checks(names, seed=3, progress=False, n_jobs=2)
    assert [strip(r) for r in a] == [strip(r) for r in b] and all(r.passed for r in a)


def test_chunk_event_mask_keeps_python_equality_across_types():
    # a chunk whose outputs happen to be all integers, while the pilot's value has a fraction: the value
    # must not be cast to the chunk's dtype ((1, 2.5) is not (1, 2)); values of another type never match
    chunk = [(1, 2), (1, 2), (0, 0)]
    for value in [(1, 2.5), (1, 2), (1.0, 2.0), ("a", "b"), (1, (2, 3)), 1, (1, 2, 3)]:
        for neg in (False, True):
            want = _indicator(int(neg), np.asarray(chunk), "discrete", [value])
            assert np.array_equal(_event_mask(chunk, "discrete", value, neg), want), (value, neg)
    ints = np.array([1, 2, 2, 3])
    for value in [2, 2.0, 2.5, "2", None, True, b"2"]:
        assert np.array_equal(_event_mask(ints, "discrete", value, False),
                              _indicator(0, ints, "discrete", [value])), value


def test_pilot_and_fresh_runs_draw_from_disjoint_generators():
    # the event is chosen on the pilot (children 0, 1 of the seed) and tested once on fresh runs (children 2, 3):
    # every chunk has its own generator, no generator serves two chunks, and the fresh runs never reuse the pilot's
    calls = []

    def mech(x, g, n):
        calls.append((x, n, g.bit_generator.seed_seq.spawn_key))
        return x + g.laplace(0.0, 1.0, n)

    res = audit(mech, 0.0, 1.0, epsilon=1.0, n_trials=40_000, pilot_trials=10_000, vectorized=True,
                chunk_size=7_000, rng=3)
    keys = [k for _, _, k in calls]
    assert len(set(keys)) == len(keys) == 2 * 2 + 2 * 6
    pilot, fresh = calls[:4], calls[4:]
    assert {k[0] for _, _, k in pilot} == {0, 1} and {k[0] for _, _, k in fresh} == {2, 3}
    assert sum(n for x, n, _ in pilot if x == 0.0) == 10_000 and sum(n for x, n, _ in fresh if x == 1.0) == 40_000
    assert res.passed and res.n_trials == 40_000
