"""Private fits on Dask (chapter 60): releases bit-identical across chunkings, partitions and workers and equal to the
in-memory fit (exact by construction: the data enter only through int64 sums — integer arithmetic, so bit equality is
the claim, not a float comparison across code paths); the exact statistic against a Python-integer reference; bad
input refused before the first draw; one privacy audit run on the Dask path."""
import math

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason='the Dask extra: pip install "dplit[distributed]"')
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask
import pandas as pd

from dplit.boosted_adassp import BoostedAdaSSPRegressor, audit_budget, audit_designs, gdp_delta
from dplit.distributed import (QMAX, AdaSSPRegressor, _quantised, _statistics, _theta_grid, add_statistics,
                               block_gradient, block_statistics, exact_boosted_adassp)


def _data(n=6000, p=5, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, p)) * 0.4
    return X, 0.1 + X @ np.linspace(-1, 1, p) + 0.2 * g.normal(size=n)


def _theta(est):
    return np.append(est.coef_, est.intercept_)


def test_statistics_are_the_python_integer_sums():
    "The int64 Gram equals the arbitrary-precision Python-int Z^T Z, also for an int64 sum over a ragged split."
    X, y = _data(2000, 7, 1)
    X[:5] *= 1e180                                     # rescaled norms
    Z = _quantised(X, y)
    assert np.abs(Z).max() <= QMAX and np.all((Z[:, :-1].astype(np.int64) ** 2).sum(1) <= QMAX**2)
    Zo = Z.astype(np.int64).astype(object)
    ref = Zo.T @ Zo
    cuts = [0, 3, 4, 1500, 2000]
    got = add_statistics(block_statistics(X[a:b], y[a:b]) for a, b in zip(cuts, cuts[1:]))["gram"]
    assert np.all(got.astype(object) == ref)
    theta_q = np.linspace(-2, 2, 8) / QMAX            # a round's gradient: Python-int reference too
    t, scale = _theta_grid(theta_q)                    # the prediction q . t is a Python integer
    qi = Z[:, :-1].astype(np.int64).astype(object)
    pred = [int((q * t.astype(object)).sum()) * scale for q in qi]
    # the grid is post-processing of theta: the prediction moves by at most sum|q_j| scale / 2
    assert max(abs(pr - float(q @ theta_q)) for pr, q in zip(pred, Z[:, :-1])) <= 8 * QMAX * scale / 2
    r = np.array([int(math.trunc(min(QMAX, max(-QMAX, (v - pr) * QMAX)))) for v, pr in zip(y, pred)],
                 dtype=object)
    ref_g = (Z[:, :-1].astype(np.int64).astype(object) * r[:, None]).sum(axis=0)
    parts = sum(block_gradient(X[a:b], y[a:b], True, 1.0, 1.0, theta_q) for a, b in zip(cuts, cuts[1:]))
    assert np.all(parts.astype(object) == ref_g)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_tiny_rows_and_bound_stay_in_the_ball(fit_intercept):
    """Rows and clip_x near 1e-160: the squares are subnormal, their sum is not within a few ulps, and the
    unrescaled norm let 445 of 2000 rows leave the ball (sum q^2 > Q^2, no intercept). The bound is Derivation 2's."""
    g = np.random.default_rng(0)
    for clip_x in (1e-160, 1e-300):
        X = g.normal(size=(2000, 5)) * clip_x
        Z = _quantised(X, np.zeros(len(X)), fit_intercept, clip_x, 1.0)
        sq = (Z[:, :-1].astype(np.int64) ** 2).sum(axis=1)
        assert sq.max() <= QMAX**2 and sq.max() >= 0.99 * QMAX**2  # in the ball, and not all zero


@pytest.mark.parametrize("make", [
    lambda: AdaSSPRegressor(epsilon=2.0, random_state=11),
    lambda: BoostedAdaSSPRegressor(epsilon=2.0, n_rounds=4, random_state=11)])
def test_bit_identical_across_chunkings_and_equal_to_in_memory(make):
    X, y = _data()
    ref = _theta(make().fit(X, y))
    n = len(X)
    chunkings = [n, 1000, 997, (1, n - 1), (2500, 10, n - 2510), (n // 2, n - n // 2)]
    for ch in chunkings:
        Xd = da.from_array(X, chunks=(ch if isinstance(ch, tuple) else ch, -1))
        yd = da.from_array(y, chunks=(ch if isinstance(ch, tuple) else ch,))
        with dask.config.set(scheduler="sync"):
            assert np.array_equal(_theta(make().fit(Xd, yd)), ref), ch  # exact: integer sums
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("abcde")).assign(t=y), npartitions=5)
    for workers in (1, 2):
        with dask.config.set(scheduler="threads", num_workers=workers):
            est = make().fit(frame[list("abcde")], frame["t"])
            assert np.array_equal(_theta(est), ref)
    assert list(est.feature_names_in_) == list("abcde") and est.n_features_in_ == 5


def test_on_a_distributed_cluster():
    """Two workers of a dask.distributed cluster, in this process (worker processes cost ~20 s of imports here;
    the chapter's benchmark runs the fits on worker processes)."""
    X, y = _data(3000)
    ref = _theta(AdaSSPRegressor(random_state=2).fit(X, y))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cl, distributed.Client(cl):
        est = AdaSSPRegressor(random_state=2).fit(da.from_array(X, chunks=(701, -1)),
                                                  da.from_array(y, chunks=701))
        pred = est.predict(da.from_array(X[:10], chunks=(3, -1))).compute()
        # Boosted AdaSSP's rounds read the quantised rows persisted on the workers
        bas = BoostedAdaSSPRegressor(n_rounds=4, random_state=2).fit(
            da.from_array(X, chunks=(701, -1)), da.from_array(y, chunks=701))
    assert np.array_equal(_theta(bas), _theta(BoostedAdaSSPRegressor(n_rounds=4, random_state=2).fit(X, y)))
    assert np.array_equal(_theta(est), ref)
    assert np.array_equal(pred, est.predict(X[:10]))


def test_pipeline_around_the_dask_fit():
    from sklearn.pipeline import make_pipeline
    X, y = _data(2000)
    with dask.config.set(scheduler="sync"):
        pipe = make_pipeline(AdaSSPRegressor(epsilon=50.0, random_state=0)).fit(
            da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500))
    mem = make_pipeline(AdaSSPRegressor(epsilon=50.0, random_state=0)).fit(X, y)
    assert np.array_equal(pipe[-1].coef_, mem[-1].coef_)


def _untouched(g, state):
    return g.bit_generator.state == state


@pytest.mark.parametrize("bad, exc, word", [
    ("nan", ValueError, "finite"), ("inf_y", ValueError, "finite"), ("one_row", ValueError, "2 rows"),
    ("bool", TypeError, "real"), ("misaligned", ValueError, "rows"), ("eps", ValueError, "epsilon"),
    ("clip", ValueError, "clip_x"), ("misaligned_unknown", ValueError, "rows")])
def test_bad_input_refused_before_the_first_draw(bad, exc, word):
    X, y = _data(400)
    kw = dict(epsilon=1.0, delta=1e-5, n_rounds=3)
    if bad == "nan":
        X[123, 2] = np.nan
    if bad == "inf_y":
        y[7] = np.inf
    if bad == "one_row":
        X, y = X[:1], y[:1]
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    if bad == "bool":
        Xd = Xd > 0
    if bad == "misaligned":
        yd = da.from_array(y[:-1], chunks=100)
    if bad == "misaligned_unknown":  # unknown chunk sizes: only the blocks can tell (numba has no bounds check)
        Xd = dd.from_pandas(pd.DataFrame(X), npartitions=4).to_dask_array()
        yd = da.from_array(y[:-1], chunks=100)
    if bad == "eps":
        kw["epsilon"] = -1.0
    if bad == "clip":
        kw["clip_x"] = 0.0
    g = np.random.default_rng(5)
    state = g.bit_generator.state
    with dask.config.set(scheduler="sync"), pytest.raises(exc, match=word):
        exact_boosted_adassp(Xd, yd, rng=g, **kw)
    assert _untouched(g, state)


def test_dask_fit_that_clips_warns_once_without_counts():
    "A Dask fit whose data exceed the bounds warns (one bit, no count) and releases what the in-memory fit releases."
    import warnings

    from dplit.core import ClippingWarning
    X, y = _data(1000)
    X, y = 3 * X, 3 * y                                # many rows and labels above clip_x = clip_r = 1
    with pytest.warns(ClippingWarning):
        ref = _theta(BoostedAdaSSPRegressor(n_rounds=3, random_state=4).fit(X, y))
    with dask.config.set(scheduler="sync"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est = BoostedAdaSSPRegressor(n_rounds=3, random_state=4).fit(
            da.from_array(X, chunks=(300, -1)), da.from_array(y, chunks=300))
    msgs = [str(m.message) for m in w if issubclass(m.category, ClippingWarning)]
    assert len(msgs) == 1 and not any(ch.isdigit() for ch in msgs[0].split("(")[0])
    assert "NON-PRIVATE" not in msgs[0] and str(len(X)) not in msgs[0]
    assert np.array_equal(_theta(est), ref)            # exact: integer sums


def test_gram_audit_on_the_dask_path():
    """Chapter 14's Gram audit, run on the Dask path: the statistic of each neighbour is computed over Dask blocks
    (the pair's rows in separate chunks), the noise drawn as `_release` draws it. The release is the same function of
    the same integers as in memory, so the audits of chapter 14 carry over; this one checks it on the Dask path: the
    correct calibration stays within its claim and the half-noise mutant is caught."""
    from dplit.audit import audit
    from dplit.boosted_adassp import symmetric_noise
    b = audit_budget(0.5)
    (X0, y0), (X1, y1) = audit_designs()
    sx = QMAX / 1.0
    with dask.config.set(scheduler="sync"):
        stats = [_statistics(da.from_array(X, chunks=(1, -1)), da.from_array(y, chunks=1), True, 1.0, 1.0)
                 for X, y in ((X0, y0), (X1, y1))]
    # the pair moves the intercept's diagonal entry by exactly the sensitivity, 1 = QMAX^2 / sx^2 (integers)
    assert stats[1]["gram"][1, 1] - stats[0]["gram"][1, 1] == QMAX**2
    entry = [s["gram"][1, 1] / sx**2 for s in stats]

    def mech(sigma):
        return lambda data, g, n: entry[data] + symmetric_noise(2, sigma, g, n)[:, 1, 1]

    claim = gdp_delta(b.mu_gram, 0.5)
    kw = dict(epsilon=0.5, delta=claim, n_trials=100_000, vectorized=True, rng=3)
    assert audit(mech(b.sigma_gram), 0, 1, **kw).passed
    assert not audit(mech(b.sigma_gram / 2), 0, 1, **kw).passed


def test_fused_kernel_is_the_row_quantiser():
    """The block kernel's inline path (common rows) and `_quantise_row` (the general path) give the same integers on
    every row: hard rows mix both paths (huge, tiny, float32, the sphere) and every bound scale."""
    from dplit.distributed import _hard_rows, _quantise_block, _quantise_row
    X, y = _hard_rows(9, 3000, 4)
    for fit_intercept in (True, False):
        for clip_x in (1.0, 0.2, 1e-160):
            d = 9 + fit_intercept
            Z = np.empty((len(X), d + 1))
            _quantise_block(X, y, fit_intercept, clip_x, 1.0, Z)
            q = np.empty(d)
            for i in range(len(X)):
                _quantise_row(X[i], fit_intercept, clip_x, q)
                assert np.array_equal(Z[i, :d], q), (fit_intercept, clip_x, i)


@pytest.mark.parametrize("rounds", [1, 4])
def test_kept_or_reread_rounds_release_the_same(rounds):
    "Rounds on the kept int16 rows (persisted) and rounds that re-read the table: the same integers, the same release."
    X, y = _data(3000)
    kw = dict(epsilon=1.0, delta=1e-5, n_rounds=rounds, rng=8)
    ref = exact_boosted_adassp(X, y, **kw)
    Xd, yd = da.from_array(X, chunks=(777, -1)), da.from_array(y, chunks=777)
    with dask.config.set(scheduler="sync"):
        for keep in (True, False):
            r = exact_boosted_adassp(Xd, yd, keep_quantised=keep, **kw)
            assert np.array_equal(r.coef, ref.coef) and r.intercept == ref.intercept  # integer sums


def test_bss_statistics_exact_and_refusals():
    """The best-subset statistics: the Python-integer reference, the same for a Dask split, and non-finite or
    misaligned data refused."""
    from dplit.distributed import bss_statistics
    X, y = _data(2000, 4, 3)
    X[:3] *= 40
    with pytest.warns(Warning):
        G, b, yy, n = bss_statistics(X, y, 0.5, 1.0)
    q = lambda v, c: [int(math.trunc(min(QMAX, max(-QMAX, float(t) * (QMAX / c))))) for t in v]
    Zx = np.array([q(r, 0.5) for r in X], dtype=object)
    zy = np.array(q(y, 1.0), dtype=object)
    assert np.all((Zx.T @ Zx) == np.rint(G * (QMAX / 0.5) ** 2).astype(np.int64).astype(object))
    assert np.all((Zx.T @ zy) == np.rint(b * (QMAX / 0.5) * QMAX).astype(np.int64).astype(object))
    assert n == 2000 and int(zy @ zy) == round(yy * QMAX**2)
    with dask.config.set(scheduler="sync"), pytest.warns(Warning):
        got = bss_statistics(da.from_array(X, chunks=(333, -1)), da.from_array(y, chunks=333), 0.5, 1.0)
    assert all(np.array_equal(a, c) for a, c in zip(got, (G, b, yy, n)))  # exact: integer sums
    X[5, 1] = np.nan
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="finite"):
        bss_statistics(da.from_array(X, chunks=(333, -1)), da.from_array(y, chunks=333))
    with pytest.raises(ValueError, match="rows"):
        bss_statistics(da.from_array(X, chunks=(333, -1)), da.from_array(y[:-1], chunks=333))


@pytest.mark.parametrize("theta", [[1e-320], [3e-318, 0.0, -1e-319], [1e305, -2e304],
                                   [0.3, -1.7, 2.0]])
def test_theta_grid_at_the_extremes(theta):
    """The grid of a round's coefficients for sums of |theta| from subnormal to ~1e305 (once an
    OverflowError or a math domain error): a prediction q . t stays below 2^53 in magnitude (Python
    integers, the exactness condition), and t 2^-k is within half a grid step of theta."""
    t, scale = _theta_grid(np.array(theta))
    assert QMAX * sum(abs(int(v)) for v in t) < 2**53
    assert all(abs(int(v) * scale - th) <= scale / 2 for v, th in zip(t, theta))


@pytest.mark.parametrize("make", [lambda acc: AdaSSPRegressor(epsilon=0.5, random_state=0, accountant=acc),
                                  lambda acc: BoostedAdaSSPRegressor(epsilon=0.5, n_rounds=3, random_state=0,
                                                                     accountant=acc)])
@pytest.mark.parametrize("bad", ["nan", "inf_y", "one_row"])
@pytest.mark.parametrize("container", ["array", "parquet"])
def test_dask_data_refused_before_the_charge_and_any_draw(make, bad, container, monkeypatch, tmp_path):
    """Bad rows in a Dask table are found only by reading it: the first pass (exact, draw-free) runs before the
    charge, so the refusal leaves the ledger empty and every generator untouched (once: 1 charge, then refused).
    Control: the same fit on clean data charges one line and draws, so the two observations can fail. The parquet
    table (frame[cols], frame['y']) takes the one-selection path (`_one_frame`) and the column-major kernels."""
    import _rules_registry as R
    from dplit.accountant import BudgetAccountant
    from dplit.distributed import _one_frame

    def dask_pair(X, y, name):
        if container == "array":
            return da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
        cols = [f"x{j}" for j in range(X.shape[1])]
        pd.DataFrame(X, columns=cols).assign(y=y).to_parquet(tmp_path / name, row_group_size=100)
        ddf = dd.read_parquet(tmp_path / name, split_row_groups=True)
        assert _one_frame(ddf[cols], ddf["y"]) is not None
        return ddf[cols], ddf["y"]
    X, y = _data(400)
    if bad == "nan":
        X[123, 2] = np.nan
    if bad == "inf_y":
        y[7] = -np.inf
    Xd, yd = dask_pair(X[:1], y[:1], "bad.parquet") if bad == "one_row" else dask_pair(X, y, "bad.parquet")
    acc, rec = BudgetAccountant(10.0, 1e-3), R.DrawRecorder(monkeypatch)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="finite|2 rows"):
        make(acc).fit(Xd, yd)
    assert acc.ledger == [] and rec.untouched()
    X, y = _data(400)
    with dask.config.set(scheduler="sync"):
        make(acc).fit(*dask_pair(X, y, "good.parquet"))
    assert len(acc.ledger) == 1 and not rec.untouched()


def test_column_kernels_are_the_row_kernels():
    """The column-major kernels (a parquet partition's layout) give the row kernels' integers and tallies on hard
    rows (huge, tiny, float32, the sphere, non-finite), cut into tiles at odd places; so block_statistics, the kept
    rows and the best-subset statistics are the same integers for a C- and an F-ordered block."""
    from dplit.distributed import (_block_pass, _bss_block, _hard_rows, _quantise_block, _quantise_columns,
                                   _quantise_entries, _quantise_entries_columns)
    X0, y = _hard_rows(9, 3000, 5)
    X0[7, 2], X0[8, 0], y[9] = np.nan, -np.inf, np.inf
    cuts = [0, 1, 1000, 1001, 3000]
    for dtype in (np.float64, np.float32):
        with np.errstate(over="ignore"):
            X = np.asfortranarray(X0.astype(dtype))
        for fit_intercept in (True, False):
            for clip_x in (1.0, 0.2, 1e-160):
                d = 9 + fit_intercept
                Zr, Zc = np.empty((3000, d + 1)), np.empty((3000, d + 1), order="F")
                ref = _quantise_block(X, y, fit_intercept, clip_x, 1.0, Zr)
                got = [_quantise_columns(X, y, a, b, fit_intercept, clip_x, 1.0, Zc[a:], np.empty(b - a))
                       for a, b in zip(cuts, cuts[1:])]
                tally = (sum(g[0] for g in got), sum(g[1] for g in got), all(g[2] for g in got))
                assert np.array_equal(Zr, Zc) and tally == ref, (dtype, fit_intercept, clip_x)
                C = np.ascontiguousarray(X)
                a, b = (_block_pass(M, y, fit_intercept, clip_x, 1.0, True) for M in (C, X))
                assert all(np.array_equal(a[0][k], b[0][k]) for k in a[0]) and np.array_equal(a[1], b[1])
        Zr, Zc = np.empty((3000, 10)), np.empty((3000, 10), order="F")
        assert _quantise_entries(X, y, 0.3, 1.0, Zr) == _quantise_entries_columns(X, y, 0, 3000, 0.3, 1.0, Zc)
        assert np.array_equal(Zr, Zc)
        s, t = _bss_block(np.ascontiguousarray(X), y, 0.3, 1.0), _bss_block(X, y, 0.3, 1.0)
        assert all(np.array_equal(s[k], t[k]) for k in s)


def test_one_read_per_partition_and_the_same_release(tmp_path):
    """X = frame[cols], y = frame['y'] of a parquet table: each partition is read once with X's columns and y's
    (one task per partition, no join), and the release is the in-memory one; y not taken from the frame (the
    general path, X and y joined) releases the same bits."""
    from dplit.distributed import _dask_blocks, _one_frame
    X, y = _data(3000, 4, 6)
    cols = [f"x{j}" for j in range(4)]
    pd.DataFrame(X, columns=cols).assign(y=y).to_parquet(tmp_path / "t.parquet", row_group_size=700)
    ddf = dd.read_parquet(tmp_path / "t.parquet", split_row_groups=True)
    assert ddf.npartitions == 5
    assert list(_one_frame(ddf[cols], ddf["y"]).columns) == cols + ["y"]
    assert _one_frame(ddf[cols], ddf["x0"]) is None and _one_frame(ddf[cols], ddf["y"] * 1.0) is None
    kind, blocks = _dask_blocks(ddf[cols], ddf["y"])
    graph = dict(dask.delayed(list)(blocks).__dask_graph__())
    names = [k[0] if isinstance(k, tuple) else k for k in graph]
    assert kind == "frame" and sum("read_parquet" in str(k) for k in names) == 5
    assert not any("assign" in str(k) for k in names)
    ref = _theta(AdaSSPRegressor(random_state=4, clip_x=10.0, clip_y=10.0).fit(X, y))
    with dask.config.set(scheduler="sync"):
        one = _theta(AdaSSPRegressor(random_state=4, clip_x=10.0, clip_y=10.0).fit(ddf[cols], ddf["y"]))
        joined = _theta(AdaSSPRegressor(random_state=4, clip_x=10.0, clip_y=10.0).fit(ddf[cols], ddf["y"] * 1.0))
    assert np.array_equal(one, ref) and np.array_equal(joined, ref)  # integer statistics: exact


def _adversarial_rows(g, n, p):
    "Rows that take every branch of the row kernel: subnormal, underflowing, huge, non-finite, -0, on the sphere."
    X = g.normal(size=(n, p)) * g.choice([1e-3, 0.1, 1.0, 30.0], size=(n, 1))
    k = n // 12
    X[:k] *= 1e-160                                    # squares underflow: the ss < 1e-200 branch
    X[k:2 * k] = g.choice([5e-324, -5e-324, 0.0, -0.0, 1e-310], size=(k, p))  # subnormals and zeros
    X[2 * k:3 * k] *= 1e200                            # the sum of squares overflows: rescale by the max
    X[3 * k, 0], X[3 * k + 1, -1], X[3 * k + 2, 1] = np.inf, -np.inf, np.nan
    X[3 * k + 3] = 0.0
    X[3 * k + 4] = -0.0
    X[3 * k + 5, :] = 0.0
    X[3 * k + 5, :2] = (3.0, -4.0)                     # norm exactly clip_x = 5 (exact in binary)
    X[3 * k + 6] = np.finfo(np.float64).max            # every square infinite
    X[3 * k + 7, 0] = 1.2e-100                         # ss just below 1e-200 ...
    X[3 * k + 7, 1:] = 0.0
    X[3 * k + 8, 0] = 1.0000001e-100                   # ... and just above
    X[3 * k + 8, 1:] = 0.0
    t = math.sqrt(0.45) * 2.0**-26                     # t^2 = 0.45 ulp(1): 1 + t^2 rounds to 1, t^2 + t^2 does not,
    X[3 * k + 9] = [1.0] + [t] * (p - 1)               # so summing this row's squares in another order than
    X[3 * k + 10] = ([t] * (p - 1) + [1.0])            # x_0, x_1, ... changes ss, its norm and (with no
    X[3 * k + 11] = 2.0**-7 * X[3 * k + 9]             # intercept, clip_x < 1) trunc(x_0 QMAX / norm)
    return g.permutation(X)


@pytest.mark.parametrize("seed", [0, 1])
def test_column_kernels_bit_equal_on_adversarial_rows(seed):
    """_quantise_columns / _quantise_entries_columns (any tile cut, any layout) give exactly the integers and tallies
    of the row kernels on rows taking every branch (underflow, overflow, non-finite, subnormal, -0, on the sphere), for
    float64, float32 and int columns, with and without the intercept; and block_statistics / _bss_block of a partition
    laid out as parquet gives it (one column-major array, the label its last column, n not a multiple of TILE_ROWS)
    equal those of the same rows C-ordered. Integers: exact comparison is right."""
    from dplit.distributed import (TILE_ROWS, _block_pass, _bss_block, _quantise_block, _quantise_columns,
                                   _quantise_entries, _quantise_entries_columns)
    g = np.random.default_rng(seed)
    n, p = 2 * TILE_ROWS + 37, 6
    X64 = _adversarial_rows(g, n, p)
    y = g.normal(size=n) * 3.0
    y[[5, 6, 7, 8]] = (np.inf, np.nan, -0.0, 5e-324)
    with np.errstate(over="ignore", invalid="ignore"):
        variants = {"float64": X64, "float32": X64.astype(np.float32),
                    "int": np.clip(np.nan_to_num(X64 * 1e3), -2**40, 2**40).astype(np.int64)}
    cuts = sorted({0, n, *g.integers(1, n, size=6).tolist(), 1, 2})
    for name, X in variants.items():
        for fit_intercept in (False, True):
            for clip_x in (5.0, 1e-160, 0.3):
                d = p + fit_intercept
                Zr = np.empty((n, d + 1))
                ref = _quantise_block(np.ascontiguousarray(X), y, fit_intercept, clip_x, 1.5, Zr)
                for order in ("F", "C"):
                    Xo = np.asarray(X, order=order)
                    Zc = np.full((n, d + 1), 7.0, order=order)  # stale values must all be overwritten
                    got = [_quantise_columns(Xo, y, a, b, fit_intercept, clip_x, 1.5, Zc[a:], np.empty(b - a))
                           for a, b in zip(cuts, cuts[1:])]
                    tally = (sum(t[0] for t in got), sum(t[1] for t in got), all(t[2] for t in got))
                    assert tally == ref and np.array_equal(Zr, Zc), (name, fit_intercept, clip_x, order)
                A = np.asfortranarray(np.column_stack([X, y]))  # a parquet partition: one F-ordered array
                assert A[:, :-1].strides[0] == A.itemsize
                for rows in (slice(None), slice(0, 1), slice(3, 5), slice(0, TILE_ROWS + 1)):
                    f = _block_pass(A[rows, :-1], A[rows, -1], fit_intercept, clip_x, 1.5, True)
                    c = _block_pass(np.ascontiguousarray(X[rows]), y[rows], fit_intercept, clip_x, 1.5, True)
                    assert all(np.array_equal(f[0][k], c[0][k]) for k in c[0]) and np.array_equal(f[1], c[1])
                    assert np.array_equal(f[2], c[2], equal_nan=True)
        Zr, Zc = np.empty((n, p + 1)), np.full((n, p + 1), 7.0, order="F")
        ref = _quantise_entries(np.ascontiguousarray(X), y, 0.3, 1.5, Zr)
        XF = np.asfortranarray(X)
        got = [_quantise_entries_columns(XF, y, a, b, 0.3, 1.5, Zc[a:]) for a, b in zip(cuts, cuts[1:])]
        assert (sum(t[0] for t in got), sum(t[1] for t in got), all(t[2] for t in got)) == ref
        assert np.array_equal(Zr, Zc)
        A = np.asfortranarray(np.column_stack([X, y]))
        s, t = _bss_block(A[:, :-1], A[:, -1], 0.3, 1.5), _bss_block(np.ascontiguousarray(X), y, 0.3, 1.5)
        assert all(np.array_equal(s[k], t[k]) for k in s)


def _pairings(A, B, cols):
    "(X, y) pairs a user may pass: y from X's frame, from another frame, reordered, filtered, recomputed ..."
    return {"same frame": (A[cols], A["y"]), "another frame, same column name": (A[cols], B["y"]),
            "y sorted": (A[cols], A.sort_values("x0")["y"]), "X sorted": (A.sort_values("x0")[cols], A["y"]),
            "y shuffled": (A[cols], A.shuffle("x0")["y"]), "y filtered": (A[cols], A[A.x0 > 0]["y"]),
            "both filtered": (A[A.x0 > 0][cols], A[A.x0 > 0]["y"]), "y doubled": (A[cols], A["y"] * 2),
            "y assigned": (A[cols], A.assign(y=A.y * 2)["y"]), "x0 assigned": (A[cols], A.assign(x0=A.y)["y"]),
            "y renamed from x0": (A[cols], A.rename(columns={"x0": "y", "y": "x0"})["y"]),
            "X includes y": (A[cols + ["y"]], A["y"]), "label is a feature": (A[cols], A["x1"]),
            "X reordered": (A[cols[::-1]], A["y"]), "X one column": (A[["x1"]], A["y"]),
            "y repartitioned": (A[cols], A.repartition(npartitions=2)["y"]),
            "y of the other frame's rows": (A[cols], dd.concat([B.partitions[0], A.partitions[1:]])["y"])}


def test_one_frame_pairs_only_a_frame_with_its_own_column(tmp_path):
    """_one_frame selects one frame's columns only when X's rows and y's are that frame's, in its order: whenever it
    does, the one block is exactly X.compute() next to y.compute() (position by position) and the release is the
    in-memory one of (X.compute(), y.compute()); y from another frame, reordered, filtered or recomputed is left to
    the join (None). A detection by column names alone fails here (another frame, y sorted, y assigned)."""
    from dplit.distributed import _one_frame
    X, y = _data(1200, 3, 9)
    cols = ["x0", "x1", "x2"]
    pdf = pd.DataFrame(X, columns=cols).assign(y=y)
    pdf.to_parquet(tmp_path / "a.parquet", row_group_size=400)
    pdf.assign(y=-y).to_parquet(tmp_path / "b.parquet", row_group_size=400)
    for A, B in [(dd.from_pandas(pdf, npartitions=3), dd.from_pandas(pdf.assign(y=-y), npartitions=3)),
                 (dd.read_parquet(tmp_path / "a.parquet", split_row_groups=True),
                  dd.read_parquet(tmp_path / "b.parquet", split_row_groups=True))]:
        fired = set()
        for name, (Xd, yd) in _pairings(A, B, cols).items():
            one = _one_frame(Xd, yd)
            if one is None:
                continue
            fired.add(name)
            Xc, yc = Xd.compute(), yd.compute()
            with dask.config.set(scheduler="sync"):
                block = one.compute()
                got = _theta(AdaSSPRegressor(random_state=2, clip_x=5.0, clip_y=5.0).fit(Xd, yd))
            assert list(block.columns) == list(Xc.columns) + [yd.name], name
            assert np.array_equal(block.to_numpy(), np.column_stack([Xc, yc])), name
            ref = _theta(AdaSSPRegressor(random_state=2, clip_x=5.0, clip_y=5.0).fit(Xc.to_numpy(), yc.to_numpy()))
            assert np.array_equal(got, ref), name  # integer statistics: exact
        assert {"same frame", "X reordered", "X one column"} <= fired  # the fast path is taken where it is right
        assert not fired & {"another frame, same column name", "y sorted", "X sorted", "y shuffled", "y filtered",
                            "y doubled", "y renamed from x0", "X includes y", "label is a feature",
                            "y repartitioned", "y of the other frame's rows"}


def test_alignment_refusal_does_not_quote_dask_text(monkeypatch):
    "dask's alignment error can quote divisions (index values): the refusal names its type only."
    import dask.dataframe as dd
    import pandas as pd
    from dplit.distributed import _dask_blocks
    secret = "777.125"                                   # stands for a private index value
    X = dd.from_pandas(pd.DataFrame({"a": np.arange(8.0), "b": np.arange(8.0)}), npartitions=2)

    def refuse(self, **kw):
        raise ValueError(f"divisions differ: {secret}")
    monkeypatch.setattr(type(X), "assign", refuse)
    with pytest.raises(ValueError, match="row-aligned") as info:
        _dask_blocks(X[["b"]], dd.from_pandas(pd.Series(np.arange(8.0)), npartitions=3))
    assert secret not in str(info.value)
