"""Issue 38: BestSubsetSelector on Dask (chapter 50's Dask section).

Truths used:
- the release is a support (discrete): compared exactly;
- the statistics the release is given are exact integer sums divided by a fixed scale (chapter 60's
  `bss_statistics`), so they are bit-identical for any chunking by construction (integer arithmetic),
  and a permutation of a column's values gives *exactly* equal diagonal entries - a float sum per chunk
  fails both;
- equality with the in-memory fit (float statistics of the clipped table) is not by construction: the
  scores differ by a measured delta_R (itself checked against the bound derived from one grid step per
  entry), and with the same seed the Gumbel-max draw of top-R is the same whenever its winner leads by
  more than epsilon delta_R / Delta (the comparison of two entries shifts by at most that). The test
  checks that premise seed by seed (replicating the draw, itself checked against the in-memory release),
  then the equality;
- chapter 50's exact output laws on its top-R audit pair, scored from the Dask statistics;
- the ledger (empty after a refusal, one charge_all of both steps for a pipeline) and a generator that
  records every use (0 draws before the charge).
"""
import math
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason='the Dask extra: pip install "dplit[distributed]"')
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask
import pandas as pd

import dplit.bss as B
import dplit.distributed as DI
from dplit.accountant import BudgetAccountant, BudgetExceededError, charged_fit
from dplit.bss import BestSubsetSelector, enumerate_supports, score_tolerance, sensitivity
from dplit.core import check_random_state

EPS, BX, BY, R_BALL, S = 1.0, 0.5, 0.5, 1.1, 2


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ClippingWarning: tested in chapter 60
        yield


def _data(n=20_000, p=6, seed=0, tie=False):
    """Signal spread over the columns (releases vary with the seed). With tie, column 1 holds column 0's
    values swapped within row pairs of equal label: sum x0^2 = sum x1^2 and sum x0 y = sum x1 y exactly."""
    g = np.random.default_rng(seed)
    X = g.uniform(-0.5, 0.5, (n, p))
    y = X @ np.linspace(0.09, 0.0, p) + 0.2 * g.normal(size=n)
    if tie:
        y[1::2] = y[::2]
        X[::2, 1], X[1::2, 1] = X[1::2, 0], X[::2, 0]
    return X, y


def _arrays(X, y, ch):
    return da.from_array(X, chunks=(ch, -1)), da.from_array(y, chunks=(ch,))


def _inputs(X, y):
    "Five row chunkings of Dask arrays and a Dask frame of 7 partitions."
    out = {k: _arrays(X, y, ch) for k, ch in DI._chunkings(len(X)).items()}
    f = dd.from_pandas(pd.DataFrame(X).add_prefix("x").assign(y=y), npartitions=7)
    out["frame, 7 partitions"] = (f.drop(columns="y"), f["y"])
    return out


class _Spy:
    "Records the statistics each Dask release is given (the arguments of `_release_stats`)."

    def __init__(self, monkeypatch):
        self.seen, real = [], B._release_stats

        def spy(G, b, yy, n):
            self.seen.append((np.array(G), np.array(b), float(yy), int(n)))
            return real(G, b, yy, n)
        monkeypatch.setattr(B, "_release_stats", spy)


def _sel(**kw):
    return BestSubsetSelector(**{"s": S, "epsilon": EPS, "random_state": 3, **kw})


def _runs(X, y, method="top_r", **kw):
    "(released supports, statistics seen) over 5 chunkings + a frame on the sync scheduler, 2 on threads."
    sups = []
    plan = [("sync", {}, list(_inputs(X, y)))] + [
        ("threads", {"num_workers": w}, ["uneven", "frame, 7 partitions"]) for w in (1, 2)]
    inputs = _inputs(X, y)
    for sched, extra, names in plan:
        with dask.config.set(scheduler=sched, **extra):
            for k in names:
                sups.append(tuple(_sel(method=method, **kw).fit(*inputs[k]).selected_.tolist()))
    return sups


def _invariant(seen) -> bool:
    "Every release saw bit-identical statistics (exact by construction: int64 sums over one scale)."
    G0, b0, yy0, n0 = seen[0]
    return all(np.array_equal(G, G0) and np.array_equal(b, b0) and yy == yy0 and n == n0
               for G, b, yy, n in seen)


@pytest.mark.parametrize("method", ["top_r", "mistakes", "mistakes_ptr", "exponential"])
def test_release_identical_across_chunkings_and_workers(method, monkeypatch):
    X, y = _data(6000)
    spy = _Spy(monkeypatch)
    kw = {"gap_check": "warn"} if method == "mistakes" else {}
    sups = _runs(X, y, method, **kw)
    assert len(sups) == 10 and len(set(sups)) == 1, sups
    assert len(spy.seen) == 10 and _invariant(spy.seen)


def test_on_a_distributed_cluster_and_with_mip_search(monkeypatch):
    """Two workers of a dask.distributed client (in this process) give the sync scheduler's statistics and
    support; MIPSearch on the Dask statistics releases what ExhaustiveSearch does (top-R, and PTR-mistakes
    through its bucket bounds), both returning the exact certified lists and minima."""
    from dplit.bss_mip import MIPSearch
    X, y = _data(6000, p=8)
    spy = _Spy(monkeypatch)
    with dask.config.set(scheduler="sync"):
        ref = _sel().fit(*_arrays(X, y, 1000)).selected_
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cl, distributed.Client(cl):
        got = _sel().fit(*_arrays(X, y, 777)).selected_
        mip = _sel(search=MIPSearch()).fit(*_arrays(X, y, 1234)).selected_
        ptr = [_sel(method="mistakes_ptr", search=m).fit(*_arrays(X, y, 999)).selected_
               for m in (None, MIPSearch())]
    assert np.array_equal(got, ref) and np.array_equal(mip, ref) and np.array_equal(*ptr)
    assert _invariant(spy.seen)


def _float_per_chunk(X, y, b_x=0.5, b_y=0.5):
    "Mutant: each block's float statistics of the clipped data, added in float64."
    def block(a, v):
        a, v = np.clip(np.asarray(a, float), -b_x, b_x), np.clip(np.asarray(v, float), -b_y, b_y)
        return {"G": a.T @ a, "b": a.T @ v, "yy": float(v @ v), "n": len(v)}
    parts = dask.compute(*DI._on_blocks(block, X, y))
    tot = {k: sum(p[k] for p in parts) for k in ("G", "b", "yy", "n")}
    return tot["G"], tot["b"], tot["yy"], tot["n"]


def _noise_per_chunk(X, y, b_x=0.5, b_y=0.5):
    "Mutant: exact statistics, with Gaussian noise drawn per block (on whichever worker runs it)."
    def block(a, v):
        st = DI._bss_block(np.asarray(a), np.asarray(v), b_x, b_y)
        st["gram"] = st["gram"] + np.random.default_rng().normal(0, 1e3, st["gram"].shape).astype(np.int64)
        return st
    st = DI.add_statistics(dask.compute(*DI._on_blocks(block, X, y)))
    sx, sy, p = DI.QMAX / b_x, DI.QMAX / b_y, st["gram"].shape[0] - 1
    g = st["gram"]
    return g[:p, :p] / sx**2, g[:p, p] / (sx * sy), float(g[p, p]) / sy**2, st["n"]


@pytest.mark.parametrize("mutant", [None, _float_per_chunk, _noise_per_chunk])
def test_statistics_exact_and_mutants_caught(mutant, monkeypatch):
    """The check above (statistics bit-identical across runs) and an exact truth (a column whose values are
    another's, swapped within row pairs of equal label, has exactly the same diagonal entry and X'y entry)
    pass for the exact pass and fail for a float sum per chunk and for noise drawn per chunk."""
    if mutant is not None:
        monkeypatch.setattr(DI, "bss_statistics", mutant)
    X, y = _data(20_000, tie=True)
    spy = _Spy(monkeypatch)
    with dask.config.set(scheduler="sync"):
        for ch in DI._chunkings(len(X)).values():
            _sel().fit(*_arrays(X, y, ch))
    tie = all(G[0, 0] == G[1, 1] and b[0] == b[1] for G, b, _, _ in spy.seen)
    assert (_invariant(spy.seen) and tie) == (mutant is None)


def _gumbel_top_r(v, p, s, seed):
    "Top-R's draw with T = inf, replicated: (position won, margin over the runner-up) from the sorted scores."
    n = 20_000
    D = sensitivity(n, s, b_x=BX, b_y=BY, r=R_BALL) + 2 * score_tolerance(n, b_y=BY)
    C = math.comb(p, s)
    R = min(2 + (p - s) * s, C - 1)
    z = -EPS * v[:R] / (2 * D)
    z = np.r_[z, math.log(C - R) + z[-1]]
    t = z + check_random_state(seed).gumbel(size=(1, R + 1))[0]   # the release's first draw
    o = np.sort(t)
    return int(np.argmax(t)), float(o[-1] - o[-2]), D, R


def test_equal_to_in_memory_when_the_draw_has_margin(monkeypatch):
    X, y = _data(20_000)
    p = X.shape[1]
    spy = _Spy(monkeypatch)
    Sm, vm = enumerate_supports(np.clip(X, -BX, BX), np.clip(y, -BY, BY), S, r=R_BALL)
    with dask.config.set(scheduler="sync"):
        _sel().fit(*_arrays(X, y, 3001))
    Xs, ys = B._release_stats(*spy.seen[0])
    Sq, vq = enumerate_supports(Xs, ys, S, r=R_BALL)
    # delta_R measured, against its bound: |x_hat - x| < b/Q per entry, summed over n rows; the score is a
    # minimum over ||beta|| <= r of y'y - 2 b_S'beta + beta'G_S beta; plus two certificates gamma
    n, ex, ey = len(X), BX / DI.QMAX, BY / DI.QMAX
    bound = n * ((2 * BY * ey + ey**2) + 2 * R_BALL * math.sqrt(S) * (BX * ey + BY * ex + ex * ey)
                 + R_BALL**2 * S * (2 * BX * ex + ex**2)) + 2 * score_tolerance(n, b_y=BY)
    mem = dict(zip(map(tuple, Sm.tolist()), vm))
    delta_r = max(abs(mem[k] - v) for k, v in zip(map(tuple, Sq.tolist()), vq))
    assert 0 < delta_r <= bound, (delta_r, bound)
    checked, released = 0, set()
    for seed in range(8):
        a, margin, D, R = _gumbel_top_r(vm, p, S, seed)
        m = _sel(random_state=seed).fit(X, y).selected_.tolist()
        if a < R:
            assert tuple(m) == tuple(Sm[a].tolist())       # the replicated draw is the release's
        if not (margin > EPS * delta_r / D and np.array_equal(Sm[:R], Sq[:R])):
            continue                                        # near a tie: equality not implied
        with dask.config.set(scheduler="sync"):
            q = _sel(random_state=seed).fit(*_arrays(X, y, 2500 + seed)).selected_.tolist()
        assert q == m, (seed, q, m)
        checked, released = checked + 1, released | {tuple(m)}
    assert checked >= 6 and len(released) >= 3, (checked, released)   # not vacuous: the draw varies


def _frame(n=4000, seed=0):
    X, y = _data(n, seed=seed)
    f = dd.from_pandas(pd.DataFrame(X).add_prefix("x").assign(y=y), npartitions=4)
    return f.drop(columns="y"), f["y"], X, y


def test_transform_is_lazy_and_keeps_names():
    Xf, yf, X, y = _frame()
    with dask.config.set(scheduler="sync"):
        sel = _sel().fit(Xf, yf)
        out = sel.transform(Xf)
        arr = sel.transform(da.from_array(X, chunks=(999, -1)))
    assert DI.is_dask(out) and DI.is_dask(arr)
    cols = [f"x{j}" for j in sel.selected_]
    assert list(out.columns) == cols and list(sel.get_feature_names_out()) == cols
    assert np.array_equal(out.compute().to_numpy(), X[:, sel.selected_])
    assert np.array_equal(arr.compute(), X[:, sel.selected_])
    with pytest.raises(ValueError, match="features"):
        sel.transform(Xf[["x0", "x1"]])


def _boom():
    raise RuntimeError("the table was read")


def _unreadable(p=6):
    "A Dask table that raises if any block is computed: a refusal before reading leaves it unread."
    X = da.from_delayed(dask.delayed(_boom)(), shape=(100, p), dtype=float)
    y = da.from_delayed(dask.delayed(_boom)(), shape=(100,), dtype=float)
    return X, y


def test_hinge_refused_before_reading_charging_or_drawing(monkeypatch):
    import _rules_registry as RR
    acc, rec = BudgetAccountant(10.0, 1e-3, relation="substitute"), RR.DrawRecorder(monkeypatch)
    with dask.config.set(scheduler="sync"), pytest.raises(TypeError, match="loss"):
        _sel(loss="hinge", accountant=acc).fit(*_unreadable())
    assert acc.ledger == [] and rec.untouched()
    with dask.config.set(scheduler="sync"), pytest.raises(RuntimeError, match="read"):
        _sel(accountant=acc).fit(*_unreadable())        # control: the squared loss does read it
    assert acc.ledger == [] and rec.untouched()


@pytest.mark.parametrize("bad", ["nan", "inf_y", "no_rows", "misaligned", "one_column", "s"])
def test_bad_dask_data_refused_with_no_charge_and_no_draw(bad, monkeypatch):
    import _rules_registry as RR
    X, y = _data(600)
    kw = {}
    if bad == "nan":
        X[123, 2] = np.nan
    if bad == "inf_y":
        y[7] = -np.inf
    Xd, yd = _arrays(X, y, 100)
    if bad == "no_rows":
        Xd, yd = Xd[:0], yd[:0]
    if bad == "misaligned":
        yd = yd[:-1]
    if bad == "one_column":
        Xd = Xd[:, :1]
    if bad == "s":
        kw = {"s": 6}
    acc, rec = BudgetAccountant(10.0, 1e-3, relation="substitute"), RR.DrawRecorder(monkeypatch)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError):
        _sel(accountant=acc, **kw).fit(Xd, yd)
    assert acc.ledger == [] and rec.untouched()
    X, y = _data(600)                                  # control: clean data charge once and draw
    with dask.config.set(scheduler="sync"):
        _sel(accountant=acc).fit(*_arrays(X, y, 100))
    assert len(acc.ledger) == 1 and not rec.untouched()


def _pipe(**sel):
    from sklearn.pipeline import Pipeline
    return Pipeline([("select", _sel(**sel)),
                     ("fit", DI.AdaSSPRegressor(epsilon=1.0, clip_y=2.0, random_state=3))])


def test_pipeline_on_a_dask_frame_planned_and_charged_once(monkeypatch):
    import _rules_registry as RR
    from test_i36c_leftovers import _ChargeSpy
    Xf, yf, X, y = _frame()
    acc = BudgetAccountant(5.0, 1e-3, relation="substitute")
    rec = RR.DrawRecorder(monkeypatch)
    spy = _ChargeSpy(acc, rec)
    pipe = _pipe()
    with dask.config.set(scheduler="sync"):
        charged_fit(acc, pipe, Xf, yf)
        pred = pipe.predict(Xf)
    assert spy.calls == [(2, True)], spy.calls        # one charge of both steps, before any draw
    assert not rec.untouched() and len(acc.ledger) == 2
    # the steps are the standalone fits: the selector's support, AdaSSP on the selected columns
    with dask.config.set(scheduler="sync"):
        alone = _sel().fit(Xf, yf)
        ada = DI.AdaSSPRegressor(epsilon=1.0, clip_y=2.0, random_state=3).fit(
            Xf[[f"x{j}" for j in alone.selected_]], yf)
    assert np.array_equal(pipe[0].selected_, alone.selected_)
    assert np.array_equal(pipe[1].coef_, ada.coef_)   # exact: AdaSSP's integer statistics
    assert DI.is_dask(pred) and len(pred.compute()) == len(X)


def test_pipeline_that_would_overspend_charges_nothing(monkeypatch):
    "Budget for the selector but not for both steps: refused whole at the plan, before any read or draw."
    import _rules_registry as RR
    acc = BudgetAccountant(1.5, 1e-3, relation="substitute")   # AdaSSP: 2 epsilon under substitution
    rec = RR.DrawRecorder(monkeypatch)
    with dask.config.set(scheduler="sync"), pytest.raises(BudgetExceededError):
        charged_fit(acc, _pipe(), *_unreadable())
    assert acc.ledger == [] and rec.untouched()


def test_public_n_reaches_the_spend_with_finite_t():
    """A finite T spends Theorem 1's epsilon', a function of n: the Dask fit must use the table's n (from the
    pass), not the p + 1 stand-in rows. Same function, same arguments (ints and the public parameters) in
    both fits, so the floats are equal by construction."""
    from dplit.bss import theorem1_epsilon
    X, y = _data(3000)
    with dask.config.set(scheduler="sync"):
        got = _sel(T=3).fit(*_arrays(X, y, 700)).spend_
    mem = _sel(T=3).fit(X, y).spend_
    R = min(2 + (X.shape[1] - S) * S, math.comb(X.shape[1], S) - 1)
    want = theorem1_epsilon(EPS, 3, R, X.shape[1], S, len(X), b_x=BX, b_y=BY, r=R_BALL)
    assert got.epsilon == mem.epsilon == want > EPS


def test_top_r_audit_pair_on_the_dask_path():
    """Chapter 50's top-R audit pair (the worst case of the sensitivity proof), its statistics computed on
    Dask: its entries are +-b_x and +-b_y, on the quantisation grid, so the quantised table is the table and
    the audit carries over. The exact privacy loss of top-R computed from the Dask statistics stays within
    epsilon = 1 (up to the law's rounding), and the half-Delta and finite-T mutants exceed it on the same scores."""
    X, y, r, c, laws = B._bss_topr_setup()
    pair = B._bss_replace_row0(X, y, B.BSS_AUDIT_ROWS["top_r"], 12, c, 2)

    def scores(Xa, ya):
        with dask.config.set(scheduler="sync"):
            st = DI.bss_statistics(da.from_array(Xa, chunks=(5, -1)), da.from_array(ya, chunks=5), 1.0, c)
        return B.support_scores(*B._release_stats(*st), np.arange(12)[:, None], r=r)

    V0, V1 = (scores(*d) for d in pair)
    loss = {k: B.pmf_epsilon(np.exp(law(V0))[0], np.exp(law(V1))[0], 0.0) for k, law in laws.items()}
    assert loss["correct"] <= 1.0 + 1e-9 < min(loss["half_delta"], loss["finite_T_claimed_eps"]), loss


@pytest.mark.parametrize("method, kw", [("top_r", {"T": 3}), ("mistakes", {"gap_check": "warn"}),
                                        ("mistakes_ptr", {}), ("exponential", {})])
def test_every_n_a_dask_release_uses_is_the_tables(method, kw, monkeypatch):
    """Every function of n the release calls after the pass (the sensitivity, the score tolerance gamma
    in Delta + 2 gamma and in the certificate checks of mistakes / PTR-mistakes, Theorem 1's epsilon')
    receives the table's n, never the p + 1 stand-in rows: a mutant that reads X.shape[0] at any one of
    these places fails (the finite-T spend test above sees only the top-R one)."""
    X, y = _data(3000)
    seen, started = [], []
    real_stats = B._release_stats

    def stats(*a):
        started.append(1)
        return real_stats(*a)
    monkeypatch.setattr(B, "_release_stats", stats)
    for name in ("sensitivity", "score_tolerance", "theorem1_epsilon"):
        def rec(*a, _f=getattr(B, name), _name=name, **k):
            if started:                               # after the pass (before it: parameter checks)
                seen.append((_name, a[5] if _name == "theorem1_epsilon" else a[0]))
            return _f(*a, **k)
        monkeypatch.setattr(B, name, rec)
    with dask.config.set(scheduler="sync"):
        _sel(method=method, **kw).fit(*_arrays(X, y, 700))
    names = {k for k, _ in seen}
    assert {"sensitivity", "score_tolerance"} <= names, seen
    assert method != "top_r" or "theorem1_epsilon" in names, seen
    assert {v for _, v in seen} == {len(X)}, seen


@pytest.mark.parametrize("method", ["top_r", "mistakes_ptr"])
def test_R_refused_from_the_schema_before_reading(method, monkeypatch):
    "R must be below C(p, s), known from the schema: refused before the pass (and the charge, the draw)."
    import _rules_registry as RR
    acc, rec = BudgetAccountant(10.0, 1e-3, relation="substitute"), RR.DrawRecorder(monkeypatch)
    C = math.comb(6, S)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="R"):
        _sel(method=method, R=C, accountant=acc).fit(*_unreadable(6))
    with dask.config.set(scheduler="sync"), pytest.raises(RuntimeError, match="read"):
        _sel(method=method, R=C - 1, accountant=acc).fit(*_unreadable(6))   # control: a valid R reads
    assert acc.ledger == [] and rec.untouched()
