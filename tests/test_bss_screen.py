"""Issue 25: the screened pair scan of MIPSearch's certification equals the full scan bit for bit,
its correlation bound holds, and the top-R / bucket searches stay equal to enumeration."""
import numpy as np
import pytest

import dplit.bss_mip as M
from dplit.bss import enumerate_supports, mistakes_count
from dplit.bss_mip import MIPSearch, bss_data


def _blocks(n, p, s, seed, rho=0.1, k=2):
    X, y, _ = bss_data(n, p, s, rho=rho, rng=seed)
    G, b, yy = X.T @ X, X.T @ y, float(y @ y)
    rho0 = float(M._max_corr(G))
    center = tuple(range(0, 2 * s, 2))
    return X, y, G, b, yy, rho0, list(M._swap_blocks(G, b, yy, center, k, rho0=rho0))


def test_max_corr_is_the_largest_correlation():
    X, y, _ = bss_data(300, 40, 3, rho=0.6, rng=1)
    G = X.T @ X
    C = G / np.sqrt(np.outer(np.diag(G), np.diag(G)))
    np.fill_diagonal(C, 0.0)
    assert M._max_corr(G) == pytest.approx(np.abs(C).max(), rel=1e-12)


@pytest.mark.parametrize("n, p, s, seed, rho", [(400, 300, 4, 0, 0.1), (900, 400, 5, 1, 0.1),
                                                (300, 120, 3, 2, 0.1), (200, 150, 4, 3, 0.9)])
def test_screened_scan_equals_full_scan(n, p, s, seed, rho):
    """For thresholds from the tightest to loose ones, the scan with the screen returns exactly the
    pairs, order and bounds of the scan without it; the screen engages where the correlations are
    small (rho = 0.1) and the correlation bound holds for every pair (checked densely)."""
    X, y, G, b, yy, rho0, blocks = _blocks(n, p, s, seed, rho)
    engaged = 0
    for U, out, _, _, pairs in blocks:
        full = M._PairScan(pairs.G, pairs.rss, pairs.t, pairs.a2, pairs.W, pairs.GoU, out,
                           M._BUDGET)                      # no rho0: never screens
        _, best, Ball, Lall = full.scan(np.inf)
        fin = np.isfinite(pairs.t)
        rb = pairs.rho_bound(fin)
        if rb is not None:                                 # the bound against dense rho
            Gi = G[np.ix_(out, out)] - pairs.W @ pairs.GoU.T
            R = Gi * np.outer(pairs.q, pairs.q)
            np.fill_diagonal(R, 0.0)
            assert np.abs(R[np.ix_(fin, fin)]).max() <= rb
        for qt in (0.0, 1e-4, 1e-3, 0.01, 0.2):
            thr = float(np.quantile(Lall, qt)) if qt else best + 1e-9 * yy
            engaged += pairs._screen(thr) is not None
            _, _, B1, L1 = full.scan(thr)
            _, _, B2, L2 = pairs.scan(thr)
            assert np.array_equal(B1, B2) and np.array_equal(L1, L2)
    assert (engaged > 0) == (rho < 0.5)


@pytest.mark.parametrize("n, p, s, R, seed", [
    (300, 18, 3, 40, 0), pytest.param(120, 16, 4, 60, 1, marks=pytest.mark.slow),
    pytest.param(60, 14, 3, 25, 2, marks=pytest.mark.slow)])
def test_top_r_and_buckets_equal_enumeration(n, p, s, R, seed):
    X, y, _ = bss_data(n, p, s, rng=seed)
    E, ve = enumerate_supports(X, y, s, r=1.1)
    m = MIPSearch()
    S, v = m.top_r(X, y, s, R, r=1.1)
    assert np.array_equal(S, E[:R])
    center = E[0]
    rows, up, lo = m.bucket_bounds(X, y, s, center, r=1.1)
    k = mistakes_count(E, center)
    exact = np.array([ve[k == j].min() for j in range(len(up))])
    gam = 1e-9 * float(y @ y)
    assert np.all(lo <= exact + gam) and np.all(exact <= up + gam)
