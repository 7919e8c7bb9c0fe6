"""Issue 38: private bounds on Dask (chapter 09's grid private quantile, range and clipping scaler).

Truths used:
- brute force: the count of values below (and up to) every grid point, by comparing every value
  with every grid point (no sort, no search); the Dask pass must return exactly these integers;
- the in-memory release with the same seed: the Dask utilities are computed by the same function
  from the same integers (int64 sums are exact in any order), so they are bit-identical by
  construction, and so is the release (a grid point: compared exactly);
- two mutants that a distributed quantile is tempted into, which the same checks must reject:
  counts made from each block's own quantile, and one release per block (noise per block);
- the ledger (empty after a refusal) and a generator that records every use (0 draws before the
  charge).
"""
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason='the Dask extra: pip install "dplit[distributed]"')
dd = pytest.importorskip("dask.dataframe")

import dask
import pandas as pd

import dplit.bounds as B
from dplit.accountant import BudgetAccountant, charged_fit
from dplit.bounds import PrivateClipScaler, private_quantile, private_range
from dplit.core import ClippingWarning

N, BOUNDS, M = 3000, (-10.0, 10.0), 201
CHUNKS = {"one block": (N,), "even": (750,) * 4, "one row first": (1, N - 1),
          "uneven": (1000, 500, 1500), "prime 101": (101,) * 29 + (N - 101 * 29,)}


def _x(seed=0):
    "Normals, a third exactly on grid points (ties: #{x < b} != #{x <= b}), two outside."
    g = np.random.default_rng(seed)
    x = g.normal(1.0, 4.0, N)
    x[::3] = g.choice(np.linspace(*BOUNDS, M), N // 3)
    x[5], x[6] = -25.0, 40.0                       # outside the bounds: counted, not clipped
    return x


def _inputs(x):
    "Five chunkings of a Dask array, and a Dask series of 6 partitions."
    out = {k: da.from_array(x, chunks=(c,)) for k, c in CHUNKS.items()}
    out["series, 6 partitions"] = dd.from_pandas(pd.Series(x), npartitions=6)
    return out


def test_counts_are_the_brute_force_integers():
    x = _x()
    grid = np.linspace(*BOUNDS, M)
    below, upto = (x[:, None] < grid).sum(0), (x[:, None] <= grid).sum(0)
    assert (upto > below).sum() > 50                  # the ties are exercised
    for k, xd in _inputs(x).items():
        c = B._dask_counts(xd, [grid], M)
        assert c.n == N and c.below.dtype == np.int64, k
        assert np.array_equal(c.below[0], below) and np.array_equal(c.upto[0], upto), k


class _UtilitySpy:
    "Records the utilities every exponential mechanism of chapter 09 is given."

    def __init__(self, monkeypatch):
        self.seen, real = [], B.exponential_mechanism

        def spy(u, *a, **kw):
            self.seen.append(np.array(u))
            return real(u, *a, **kw)
        monkeypatch.setattr(B, "exponential_mechanism", spy)


def _same_as_in_memory(release, x, inputs, seeds=(0, 1, 2)) -> bool:
    "release(data, seed) on every input equals release(x, seed) in memory, every seed (exactly)."
    return all(np.array_equal(release(xd, s), release(x, s))
               for s in seeds for xd in inputs.values())


@pytest.mark.parametrize("relation", ["add/remove", "substitute"])
def test_quantile_and_range_bit_identical_across_chunkings_and_memory(relation, monkeypatch):
    x, spy = _x(), _UtilitySpy(monkeypatch)
    inputs = _inputs(x)
    with dask.config.set(scheduler="sync"):
        for q in (0.05, 0.3, 0.5, 0.9):
            spy.seen.clear()
            assert _same_as_in_memory(lambda v, s: private_quantile(
                v, q, 1.0, BOUNDS, M, relation=relation, rng=s).value, x, inputs)
            # exact by construction (integer counts, then the same arithmetic): the very same floats
            assert all(np.array_equal(u, spy.seen[-1]) for u in spy.seen)
        assert _same_as_in_memory(lambda v, s: private_range(
            v, 1.0, BOUNDS, (0.1, 0.8), M, relation=relation, rng=s, size=4).value, x, inputs)
    with dask.config.set(scheduler="threads", num_workers=2):   # another scheduler, same numbers
        assert _same_as_in_memory(lambda v, s: private_quantile(
            v, 0.3, 1.0, BOUNDS, M, relation=relation, rng=s).value, x,
            {"uneven": inputs["uneven"]})


def _block_quantile_counts(block, grids):
    "Mutant 1: each block summarised by its own 30% quantile, the counts made from those quantiles."
    a = np.asarray(block, dtype=float)
    qb = np.quantile(a, 0.3)
    below = np.stack([len(a) * (qb < g) for g in grids]).astype(np.int64)
    upto = np.stack([len(a) * (qb <= g) for g in grids]).astype(np.int64)
    return below, upto, len(a), bool(np.isfinite(a).all())


def _noise_per_block(v, q, eps, rng):
    "Mutant 2: one private quantile per block (its own noise), the releases averaged by block size."
    if not hasattr(v, "chunks"):
        return private_quantile(v, q, eps, BOUNDS, M, rng=rng).value
    parts = [(len(b), private_quantile(b, q, eps, BOUNDS, M, rng=rng).value)
             for b in dask.compute(*v.to_delayed().ravel())]
    return sum(n * r for n, r in parts) / sum(n for n, _ in parts)


def test_mutants_are_caught(monkeypatch):
    x = _x(1)
    inputs = {k: v for k, v in _inputs(x).items() if k != "series, 6 partitions"}
    rel = lambda v, s: private_quantile(v, 0.3, 2.0, BOUNDS, M, rng=s).value  # noqa: E731
    with dask.config.set(scheduler="sync"):
        assert _same_as_in_memory(rel, x, inputs)                             # control
        assert not _same_as_in_memory(lambda v, s: _noise_per_block(v, 0.3, 2.0, s), x, inputs)
        monkeypatch.setattr(B, "_block_counts", _block_quantile_counts)
        assert not _same_as_in_memory(rel, x, inputs)


def _boom(*_):
    raise RuntimeError("the table was read")


def _unreadable():
    return da.from_delayed(dask.delayed(_boom)(), shape=(100,), dtype=float)


@pytest.mark.parametrize("call", ["quantile", "range", "scaler"])
def test_gridless_refused_before_reading_charging_or_drawing(call, monkeypatch):
    import _rules_registry as RR
    acc, rec = BudgetAccountant(10.0), RR.DrawRecorder(monkeypatch)
    fits = {"quantile": lambda v: private_quantile(v, 0.5, 1.0, BOUNDS, None, accountant=acc),
            "range": lambda v: private_range(v, 1.0, BOUNDS, n_grid=None, accountant=acc),
            "scaler": lambda v: PrivateClipScaler(n_grid=None, accountant=acc).fit(v[:, None])}
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="n_grid"):
        fits[call](_unreadable())
    assert acc.ledger == [] and rec.untouched()


@pytest.mark.parametrize("bad", ["nan", "inf", "no_rows"])
@pytest.mark.parametrize("call", ["quantile", "range", "scaler"])
def test_bad_values_refused_with_no_charge_and_no_draw(call, bad, monkeypatch):
    import _rules_registry as RR
    x = _x()
    if bad in ("nan", "inf"):
        x[2345] = np.nan if bad == "nan" else -np.inf
    acc, rec = BudgetAccountant(10.0), RR.DrawRecorder(monkeypatch)
    fits = {"quantile": lambda v: private_quantile(v, 0.5, 1.0, BOUNDS, M, accountant=acc),
            "range": lambda v: private_range(v, 1.0, BOUNDS, accountant=acc),
            "scaler": lambda v: PrivateClipScaler(bounds=BOUNDS, accountant=acc).fit(v[:, None])}
    xd = da.from_array(x, chunks=(700,))
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError):
        fits[call](xd[:0] if bad == "no_rows" else xd)
    assert acc.ledger == [] and rec.untouched()
    with pytest.raises(ValueError):                    # the in-memory path refuses the same data
        fits[call](x[:0] if bad == "no_rows" else x)
    assert acc.ledger == [] and rec.untouched()
    with dask.config.set(scheduler="sync"):            # control: clean data charge once and draw
        fits[call](da.from_array(_x(), chunks=(700,)))
    assert len(acc.ledger) == 1 and not rec.untouched()


def _frame(n=N, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(0.0, 3.0, (n, 5))
    y = X @ np.array([0.4, -0.3, 0.0, 0.0, 0.1]) + g.normal(0.0, 1.0, n)
    f = dd.from_pandas(pd.DataFrame(X).add_prefix("x").assign(y=y), npartitions=4)
    return f.drop(columns="y"), f["y"], X, y


def test_scaler_fit_and_lazy_transform_equal_to_memory():
    Xf, _, X, _ = _frame()
    kw = dict(bounds=BOUNDS, random_state=7)
    mem = PrivateClipScaler(**kw).fit(pd.DataFrame(X).add_prefix("x"))
    with dask.config.set(scheduler="sync"):
        for Xd in (Xf, da.from_array(X, chunks=(333, 2)), da.from_array(X, chunks=(N, -1))):
            sc = PrivateClipScaler(**kw).fit(Xd)
            assert np.array_equal(sc.ranges_, mem.ranges_)          # grid points: exact
            if hasattr(Xd, "columns"):
                assert list(sc.feature_names_in_) == list(Xf.columns)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                Z = sc.transform(Xd)
            assert type(Z).__module__.startswith("dask")           # lazy
            msgs = [str(m.message) for m in w if issubclass(m.category, ClippingWarning)]
            assert len(msgs) == 1 and not any(ch.isdigit() for ch in msgs[0]), msgs  # no count
            Zc = np.asarray(Z.compute())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # same elementwise formula on the same floats (no reduction): exact
                assert np.array_equal(Zc, mem.transform(pd.DataFrame(X).add_prefix("x")))


def test_pipeline_scaler_selector_adassp_on_a_dask_frame(monkeypatch):
    import _rules_registry as RR
    from sklearn.pipeline import Pipeline
    from test_i36c_leftovers import _ChargeSpy

    from dplit.bss import BestSubsetSelector
    from dplit.distributed import AdaSSPRegressor, is_dask
    Xf, yf, X, y = _frame()
    acc = BudgetAccountant(20.0, 1e-3, relation="substitute")
    rec = RR.DrawRecorder(monkeypatch)
    spy = _ChargeSpy(acc, rec)
    pipe = Pipeline([
        ("scale", PrivateClipScaler(bounds=BOUNDS, feature_range=(-0.5, 0.5),
                                    relation="substitute", random_state=1)),
        ("select", BestSubsetSelector(s=2, epsilon=1.0, b_y=10.0, random_state=2)),
        ("fit", AdaSSPRegressor(epsilon=1.0, clip_y=10.0, random_state=3))])
    with warnings.catch_warnings(), dask.config.set(scheduler="sync"):
        warnings.simplefilter("ignore")
        charged_fit(acc, pipe, Xf, yf)
        pred = pipe.predict(Xf)
        alone = PrivateClipScaler(bounds=BOUNDS, feature_range=(-0.5, 0.5), relation="substitute",
                                  random_state=1).fit(pd.DataFrame(X).add_prefix("x"))
        assert spy.calls == [(3, True)], spy.calls     # one charge of 3 steps, before any draw
        assert len(acc.ledger) == 3 and not rec.untouched()
        assert np.array_equal(pipe[0].ranges_, alone.ranges_)  # the in-memory release
        assert is_dask(pred)
        p = np.asarray(pred.compute())
    assert p.shape == (N,) and np.all(np.isfinite(p)) and len(pipe[1].selected_) == 2


# ---- review rev38q: empty blocks, adversarial values, the same ledger, two more mutants ----
def _adversarial():
    "-0.0 and +0.0 (a grid point), every grid point itself, values far outside the bounds."
    g = np.linspace(*BOUNDS, M)
    return np.concatenate([[-0.0, 0.0, -0.0], g, g[::7], [-1e9, 1e9, -10.0, 10.0], g[:5] + 0.05])


def _ledger_and_release(data, relation, seed):
    acc = BudgetAccountant(10.0, relation=relation)
    r = private_range(data, 1.0, BOUNDS, n_grid=M, relation=relation, accountant=acc, rng=seed)
    return acc.ledger, r.value


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("relation", ["add/remove", "substitute"])
def test_empty_partitions_adversarial_values_same_release_and_ledger(dtype, relation):
    """A filtered series has empty partitions (whether one is empty depends on the data): the pass
    must not fail on them. Values on grid points, -0.0, outside values, int and float32 columns:
    the same int64 counts, so the same release and the same ledger lines as in memory (exact)."""
    x = _adversarial().astype(dtype)
    keep = np.ones(len(x), bool)
    keep[:len(x) // 3] = False                          # the first partitions filtered out whole
    s = dd.from_pandas(pd.Series(np.where(keep, x, np.nan).astype(float)), npartitions=5)
    ser = s[s.notnull()].astype(dtype)
    arr = da.from_array(x[keep], chunks=((0, 1, 0, int(keep.sum()) - 1, 0),))  # empty chunks
    with dask.config.set(scheduler="sync"):
        assert any(len(p) == 0 for p in dask.compute(*ser.to_delayed()))   # the case is real
        for data in (ser, arr):
            c = B._dask_counts(data, [np.linspace(*BOUNDS, M)], M)
            xm, grid = x[keep].astype(float), np.linspace(*BOUNDS, M)
            assert np.array_equal(c.below[0], (xm[:, None] < grid).sum(0))   # brute force
            assert np.array_equal(c.upto[0], (xm[:, None] <= grid).sum(0)) and c.n == len(xm)
            for seed in range(5):
                led, rel = _ledger_and_release(data, relation, seed)
                led_mem, rel_mem = _ledger_and_release(x[keep], relation, seed)
                assert led == led_mem and np.array_equal(rel, rel_mem)   # grid points: exact


def test_no_rows_refused_by_name_not_by_accident():
    "An empty Dask input (all blocks empty) is refused with the row message, nothing else."
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="at least 1 row"):
        private_quantile(da.from_array(np.arange(6.0), chunks=3)[:0], 0.5, 1.0, BOUNDS, M)


_ORIG_BLOCK_COUNTS = B._block_counts


def _swapped_sides(block, grids):
    "Mutant 3: below/up-to swapped (side='right' for below): differs only on ties."
    below, upto, n, fin = _ORIG_BLOCK_COUNTS(block, grids)
    return upto, below, n, fin


def _clipped_first(block, grids):
    "Mutant 4: the block clipped to the bounds before counting (the in-memory utility does not)."
    return _ORIG_BLOCK_COUNTS(np.clip(np.asarray(block, float), *BOUNDS), grids)


@pytest.mark.parametrize("mutant", [_swapped_sides, _clipped_first])
def test_side_and_clipping_mutants_are_caught(mutant, monkeypatch):
    x = _adversarial()
    grid = np.linspace(*BOUNDS, M)
    xd = da.from_array(x, chunks=(40,))
    monkeypatch.setattr(B, "_block_counts", mutant)
    with dask.config.set(scheduler="sync"):
        c = B._dask_counts(xd, [grid], M)
    assert not (np.array_equal(c.below[0], (x[:, None] < grid).sum(0))
                and np.array_equal(c.upto[0], (x[:, None] <= grid).sum(0)))


@pytest.mark.parametrize("dask_input", [True, False])
def test_bad_rng_refused_before_reading_and_charging(dask_input):
    "An invalid rng is an argument: refused before the pass and the charge (0 ledger lines)."
    acc = BudgetAccountant(10.0)
    x = _unreadable() if dask_input else _x()
    with dask.config.set(scheduler="sync"), pytest.raises(TypeError, match="rng"):
        private_quantile(x, 0.5, 1.0, BOUNDS, M, accountant=acc, rng="not a generator")
    assert acc.ledger == []
