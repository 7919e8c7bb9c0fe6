"""Issue 25: best-subset selection at scale -- the streamed pair bounds, the one-X'X-per-release
cache, the cheaper psd_shift and the certification's budgets, each against an independent truth."""
import gc

import numpy as np
import pytest

import dplit.bss as B
import dplit.bss_mip as M
from dplit.bss import ExhaustiveSearch, clip_data, enumerate_supports, top_r_select
from dplit.bss_mip import MIPSearch, SolverError, bss_data, kswap_bounds, psd_shift


def _gram(n, p, s, seed, snr=5.0):
    X, y, _ = bss_data(n, p, s, snr=snr, rng=seed)
    return X, y, X.T @ X, X.T @ y, float(y @ y)


def _pair_tolerance(G, b, yy, U, out, lb):
    """Per pair, a bound on |streamed - dense| for the k = 2 bound, derived from the two evaluation
    orders. Both compute M_ij = G_ij - sum_u W_iu GoU_ju (|U| products summed, in different
    orders), then rho_ij = M_ij / sqrt(a_i a_j) (dense) or M_ij a_i^-1/2 a_j^-1/2 (streamed); each
    is within gamma_{|U|+1} A_ij / sqrt(a_i a_j) + gamma_8 |rho| of the exact rho of the same
    inputs, A_ij = |G_ij| + sum_u |W_iu GoU_ju|, gamma_m = m u / (1 - m u). Given rho, both
    evaluate g = (t_i^2 + t_j^2 - 2 rho t_i t_j) / (1 - rho^2) and rss - g with the same
    operations, so the bounds differ by |dg/drho| (twice the rho error) to first order, plus a
    rounding of rss - g each; a factor 2 covers the second order (|d rho| / (1 - rho^2) < 1e-6)."""
    u = np.finfo(float).eps / 2
    gam = lambda m: m * u / (1 - m * u)
    rss, c, a2, W, GoU = M._base_stats(G, b, yy, U, out)
    t = c / np.sqrt(a2)
    A = np.abs(G[np.ix_(out, out)]) + (np.abs(W) @ np.abs(GoU).T if W is not None else 0.0)
    rho = (G[np.ix_(out, out)] - (W @ GoU.T if W is not None else 0.0)) / np.sqrt(np.outer(a2, a2))
    np.fill_diagonal(rho, 0.0)                         # as in kswap_bounds (not a pair)
    drho = 2 * (gam(len(U) + 1) * A / np.sqrt(np.outer(a2, a2)) + gam(8) * np.abs(rho))
    den = 1 - rho * rho
    g = (t[:, None] ** 2 + t[None, :] ** 2 - 2 * rho * np.outer(t, t)) / den
    dg = np.abs(2 * rho * g - 2 * np.outer(t, t)) / den
    return 2 * dg * drho + 4 * u * np.abs(lb), rss


@pytest.mark.parametrize("seed, budget, n, p, s", [(0, 64 * 7, 80, 30, 4), (1, 64 * 30, 80, 30, 4),
                                                   (2, M._BUDGET, 80, 30, 4),
                                                   (3, 64 * 11, 50, 40, 8)])
def test_pair_scan_equals_dense_bounds(seed, budget, n, p, s):
    """The banded k = 2 scan against the dense matrix of `kswap_bounds`: every pair's bound within
    the derived rounding tolerance (far below the certification's margin 1e-9 y'y), the greedy
    pair a minimiser up to it, and the pairs under a threshold the dense ones except pairs within
    it of the threshold, in row-major order (budget 64*7 bytes: one row per band)."""
    X, y, G, b, yy = _gram(n, p, s, seed)
    center = tuple(range(0, 2 * s, 2))
    dense = list(kswap_bounds(G, b, yy, center, 2))
    streamed = list(M._swap_blocks(G, b, yy, center, 2, budget))
    assert len(dense) == len(streamed) == s * (s - 1) // 2
    for (U, out, lb, _), (U2, out2, _, _, pairs) in zip(dense, streamed):
        assert np.array_equal(U, U2) and np.array_equal(out, out2)
        assert np.all(np.isfinite(lb[~np.eye(len(out), dtype=bool)]))   # all bounds exist here
        tol, _ = _pair_tolerance(G, b, yy, U, out, lb)
        assert tol.max() < 1e-3 * 1e-9 * yy             # far below the certification's margin
        iu = np.triu_indices(len(out), 1)
        _, _, Ball, Lall = pairs.scan(np.inf)           # every pair i < j, row-major
        assert np.array_equal(Ball, np.column_stack(iu))
        assert np.all(np.abs(Lall - lb[iu]) <= tol[iu])
        off = np.where(np.eye(len(out), dtype=bool), np.inf, lb)
        q = np.unravel_index(np.argmin(off), off.shape)
        thr = float(np.quantile(lb[iu], 0.2))
        ij, best, Bp, L = pairs.scan(thr)
        assert ij[0] != ij[1] and off[ij] - off[q] <= tol[ij] + tol[q]
        assert abs(best - off[ij]) <= tol[ij]
        dense_set = set(zip(*np.nonzero(np.triu(lb <= thr, 1))))
        got = [tuple(r) for r in Bp.tolist()]
        assert got == sorted(got)                       # row-major order
        for i, j in dense_set.symmetric_difference(got):
            assert abs(lb[i, j] - thr) <= tol[i, j]
        np.testing.assert_array_equal(np.abs(L - lb[Bp[:, 0], Bp[:, 1]]) <= tol[Bp[:, 0], Bp[:, 1]],
                                      True)


@pytest.mark.parametrize("k", [3, 4])
def test_streamed_rho_max_equals_dense(k):
    X, y, G, b, yy = _gram(60, 25, 5, 3)
    center = (1, 3, 5, 7, 9)
    for (U, out, lb, mx), (_, _, lb2, _, pairs) in zip(kswap_bounds(G, b, yy, center, k),
                                                      M._swap_blocks(G, b, yy, center, k, 64 * 5)):
        assert np.array_equal(lb, lb2)
        mx2 = pairs.max_abs_rho(np.isfinite(lb2))
        assert mx2 == pytest.approx(mx, rel=1e-12, abs=1e-15)


def test_pair_scan_caps_candidates():
    X, y, G, b, yy = _gram(80, 30, 4, 0)
    pairs = next(M._swap_blocks(G, b, yy, (0, 2, 4, 6), 2))[4]
    with pytest.raises(SolverError, match="max_candidates"):
        pairs.scan(np.inf, max_candidates=10)


@pytest.mark.parametrize("n, p", [(200, 40), (60, 50), (500, 120)])
def test_psd_shift_is_proved_and_close(n, p):
    "G - dI is PSD (eigvalsh, independent) and d keeps at least half of lambda_min."
    X, y, G, _, _ = _gram(n, p, 3, 5)
    lam = np.linalg.eigvalsh(G)[0]
    d = psd_shift(G)
    assert 0.0 <= d <= lam + 1e-9 * np.max(np.diag(G)) * p
    assert d >= 0.5 * lam


def test_clip_data_copies_only_when_needed():
    g = np.random.default_rng(0)
    X, y = g.uniform(-0.4, 0.4, (20, 5)), g.uniform(-0.4, 0.4, 20)
    Xc, yc = clip_data(X, y, b_x=0.5, b_y=0.5)
    assert Xc is X and yc is y                        # nothing outside: the arrays themselves
    X2 = X.copy()
    X2[3, 1] = 0.9
    from dplit.core import ClippingWarning
    from dplit.core import clipping_counts
    with pytest.warns(ClippingWarning, match="entries of X 1 of 100"), clipping_counts():
        Xc, _ = clip_data(X2, y, b_x=0.5, b_y=0.5)
    assert Xc is not X2 and X2[3, 1] == 0.9 and Xc[3, 1] == 0.5


def test_one_gram_per_release_and_freed(monkeypatch):
    """Within a top-R release with MIPSearch, X'X is formed once (counted at `_gram`'s formation),
    the release equals the exhaustive one seed for seed, and nothing stays cached afterwards."""
    X, y, _ = bss_data(300, 14, 3, rng=4)
    formed = []
    real = B._gram

    def counting(Xa, ya):
        e = B._release_entry(Xa, ya)
        if e is not None and "G" not in e:
            formed.append(Xa.shape)
        return real(Xa, ya)

    monkeypatch.setattr(B, "_gram", counting)
    monkeypatch.setattr(M, "_gram", counting)
    for seed in range(3):
        formed.clear()
        a = top_r_select(X, y, 3, 1.0, search=MIPSearch(), rng=seed)
        assert formed == [X.shape]
        assert a.value == top_r_select(X, y, 3, 1.0, search=ExhaustiveSearch(), rng=seed).value
    gc.collect()
    assert B._RELEASES == {}


def test_cuts_key_sees_in_place_changes():
    "Outside a release the cache key reads the bytes: an in-place change of X is a new key."
    X, y, _ = bss_data(60, 8, 2, rng=0)
    m = MIPSearch()
    c1 = m._cuts(X, y, 1.1)
    X[0, 0] += 0.01
    c2 = m._cuts(X, y, 1.1)
    assert c2 is not c1 and c2.G[0, 0] == pytest.approx(float(X[:, 0] @ X[:, 0]))
    Xf = np.asfortranarray(X)
    assert m._cuts(Xf, y, 1.1) is not c2                 # the memory order is part of the key


@pytest.mark.parametrize("budget", [64 * 3, 1e9])
def test_top_r_with_tiny_memory_budget_equals_enumeration(budget):
    X, y, _ = bss_data(200, 14, 4, snr=0.5, rng=1)
    E, ve = enumerate_supports(X, y, 4, r=1.1)
    R = 2 + 10 * 4
    S, v = MIPSearch(memory_budget=budget).top_r(X, y, 4, R, r=1.1)
    assert np.array_equal(S, E[:R])


# the certification's budget is what these tests exercise; the outer approximation before it would use its
# whole default time_limit (20 s) on these weak-signal data, and its result cannot change the error
FAST_OA = dict(time_limit=1.0, oa2_time=0.5)


def test_certification_budget_fails_at_once_with_advice():
    X, y, _ = bss_data(300, 40, 5, snr=0.5, rng=2)
    with pytest.raises(SolverError, match="certify_time"):
        MIPSearch(certify_time=1e-9, **FAST_OA).top_r(X, y, 5, 200, r=1.1)


@pytest.mark.parametrize("name", ["certify_time", "memory_budget"])
def test_new_parameters_validated(name):
    with pytest.raises(ValueError, match=name):
        MIPSearch(**{name: 0})


def test_data_key_reads_views_by_value_and_sees_in_place_changes():
    """The cache key of a non-contiguous view (strided, reversed) equals that of a contiguous copy
    of the same values (the independent truth), and changes when the base array is changed in
    place under the view; F order is part of the key."""
    g = np.random.default_rng(7)
    base, yb = g.normal(size=(40, 30)), g.normal(size=80)
    for V, yv in [(base[::2, ::3], yb[::4]), (base[::-1, 5:17], yb[::-2]),
                  (base.T[::2, :20], yb[:30]), (base.T[:, :20], yb[1:31])]:   # the last: F order
        assert not V.flags.c_contiguous
        k = B._data_key(V, yv, ("x",))
        same = np.asfortranarray if V.flags.f_contiguous else np.ascontiguousarray
        assert k == B._data_key(same(V.copy()), yv.copy(), ("x",))
        assert k != B._data_key(V, yv, ("z",))
        old = V[0, 0]
        V[0, 0] = old + 1e-12                           # writes through to `base`
        assert B._data_key(V, yv, ("x",)) != k
        V[0, 0] = old
        assert B._data_key(V, yv, ("x",)) == k
        yv[-1] += 1.0
        assert B._data_key(V, yv, ("x",)) != k
        yv[-1] -= 1.0
    F = np.asfortranarray(base)
    assert B._data_key(F, yb, ()) == B._data_key(np.asfortranarray(base.copy()), yb, ())
    assert B._data_key(F, yb, ()) != B._data_key(base, yb, ())


def test_exhaustive_cache_sees_in_place_change():
    "The one-entry cache of ExhaustiveSearch recomputes after X is changed in place."
    X, y, _ = bss_data(60, 8, 2, rng=1)
    e = ExhaustiveSearch()
    S1, _ = e.top_r(X, y, 2, 3, r=1.1)
    X[:, 7] = y / np.max(np.abs(y)) * 0.5               # column 7 now fits y exactly
    S2, v2 = e.top_r(X, y, 2, 3, r=1.1)
    S3, v3 = ExhaustiveSearch().top_r(X, y, 2, 3, r=1.1)
    assert not np.array_equal(S1, S2) and np.array_equal(S2, S3) and np.array_equal(v2, v3)
    assert 7 in S2[0]


def test_certification_budget_releases_nothing():
    """Through the mechanisms the budget's SolverError propagates: no Release is returned (top-R and
    the mistakes method, whose exact buckets use the same clock)."""
    from dplit.bss import mistakes_select
    X, y, _ = bss_data(300, 40, 5, snr=0.5, rng=2)
    with pytest.raises(SolverError, match="certify_time"):
        top_r_select(X, y, 5, 1.0, search=MIPSearch(certify_time=1e-9, **FAST_OA), rng=0)
    with pytest.raises(SolverError, match="certify_time"):
        mistakes_select(X, y, 5, 1.0, search=MIPSearch(certify_time=1e-9, **FAST_OA), gap_check="warn",
                        rng=0)
