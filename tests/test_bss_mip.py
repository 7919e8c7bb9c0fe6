"MIPSearch equals enumeration; plugging it into the mechanisms changes nothing in their output law."
import math
import warnings

import numpy as np
import pytest

from dplit.bss import ExhaustiveSearch, enumerate_supports, mistakes_select, top_r_select
from dplit.bss_mip import (MIPSearch, PerspectiveCuts, bss_data, kswap_candidates,
                           one_swap_supports, oa_top_r)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_top_r_equals_enumeration(seed):
    g = np.random.default_rng(seed)
    p, s = int(g.integers(10, 17)), int(g.integers(2, 5))
    X, y, _ = bss_data(int(g.integers(30, 300)), p, s, snr=float(g.choice([0.3, 1.0, 5.0])), rng=g)
    E, ve = enumerate_supports(X, y, s, r=1.1)
    m = MIPSearch()
    for R in (1, 3, 2 + (p - s) * s, math.comb(p, s) // 2):
        S, v = m.top_r(X, y, s, R, r=1.1)
        np.testing.assert_array_equal(S, E[:R])
        np.testing.assert_allclose(v, ve[:R], rtol=0, atol=1e-9 * ve[0])


def _hard_instances():
    "Ties (duplicate columns), near-duplicates, n < p with a zero column, binary data, rho = 0.95."
    g = np.random.default_rng(21)
    X, y, _ = bss_data(100, 10, 3, snr=1.0, rng=1)
    X[:, 5], X[:, 7] = X[:, 0], X[:, 2]
    yield X, y, 3
    X, y, _ = bss_data(100, 11, 3, snr=1.0, rng=2)
    X[:, 5] = X[:, 0] + 1e-7 * g.standard_normal(100)
    yield X, y, 3
    X, y, _ = bss_data(8, 12, 3, snr=1.0, rng=3)
    X[:, 4] = 0.0
    yield X, y, 3
    X = g.integers(0, 2, (30, 10)) * 0.5
    yield X, np.clip(X[:, :2].sum(1) + 0.3 * g.standard_normal(30), -0.5, 0.5), 3
    X, y, _ = bss_data(200, 12, 4, rho=0.95, snr=0.5, rng=4)
    yield X, y, 4


@pytest.mark.parametrize("case", range(5))
def test_top_r_equals_enumeration_hard(case):
    "Ties are broken lexicographically as in enumeration; degenerate data never raises."
    X, y, s = list(_hard_instances())[case]
    p = X.shape[1]
    E, ve = enumerate_supports(X, y, s, r=1.1)
    # case 4 (rho = 0.95): the outer approximation does not close its gap and would run to the default
    # time limit (20 s) on every call; a short limit tests the time-out path, after which the certification,
    # exact from any centre, must still give enumeration's list (the other cases test the converged path)
    m = MIPSearch(time_limit=2.0, oa2_time=0.5) if case == 4 else MIPSearch()
    for R in (1, 2, 2 + (p - s) * s, math.comb(p, s) // 2):
        np.testing.assert_array_equal(m.top_r(X, y, s, R, r=1.1)[0], E[:R])
    for rule in ("exact", "at_least"):
        want = ExhaustiveSearch().best_per_bucket(X, y, s, E[0], r=1.1, rule=rule)[0]
        np.testing.assert_array_equal(m.best_per_bucket(X, y, s, E[0], r=1.1, rule=rule)[0], want)


def test_oa_top_r_equals_enumeration():
    X, y, _ = bss_data(100, 15, 3, snr=2.0, rng=4)
    E, _ = enumerate_supports(X, y, 3, r=1.1)
    S, v, lb = oa_top_r(X, y, 3, 4, r=1.1)
    np.testing.assert_array_equal(S, E[:4])
    assert np.all(lb <= v + 1e-9 * v)


def test_kswap_candidates_superset():
    X, y, _ = bss_data(80, 13, 4, snr=1.0, rng=5)
    E, ve = enumerate_supports(X, y, 4, r=1.1)
    G, b, yy = X.T @ X, X.T @ y, float(y @ y)
    k_of = 4 - np.isin(E, E[0]).sum(1)
    for k in range(1, 5):
        th = float(np.quantile(ve[k_of == k], 0.3))
        C, _ = kswap_candidates(G, b, yy, E[0], k, th, margin=1e-9 * yy, max_candidates=10 ** 6)
        want = {tuple(S) for S, v, kk in zip(E, ve, k_of) if kk == k and v <= th}
        assert want <= {tuple(S) for S in C}


def test_one_swap_count():
    P = one_swap_supports((1, 4, 7), 10)
    assert P.shape == (21, 3) and len({tuple(r) for r in P}) == 21
    assert all(len(set(r) & {1, 4, 7}) == 2 for r in P)


def test_cut_mutant_detected():
    "Cuts with d above lambda_min(X'X) over-estimate the score somewhere: the test can fail."
    X, y, _ = bss_data(60, 11, 3, snr=5.0, rng=6)
    E, ve = enumerate_supports(X, y, 3, r=1.1)
    Z = np.zeros((len(E), 11))
    Z[np.arange(len(E))[:, None], E] = 1
    for scale, ok in ((1.0, True), (3.0, False)):
        c = PerspectiveCuts(X, y, 1.1)
        c.d *= scale
        worst = max(float(np.max(v + (Z - Z[k]) @ g - ve))
                    for k in range(len(E)) for v, g, _ in [c.cut(E[k])])
        assert (worst <= 1e-9 * ve.max()) == ok


def test_mechanisms_identical_with_mip_backend():
    "Same list, same seed -> same release: the exhaustive backend's audits carry over to MIPSearch."
    X, y, _ = bss_data(300, 14, 3, snr=1.0, rng=7)
    kw = dict(epsilon=1.0, r=1.1, b_x=0.5, b_y=0.5)
    for k in range(8):
        assert (top_r_select(X, y, 3, search=MIPSearch(), rng=k, **kw).value
                == top_r_select(X, y, 3, search=ExhaustiveSearch(), rng=k, **kw).value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = mistakes_select(X, y, 3, search=MIPSearch(), rng=k, gap_check="warn", **kw).value
            b = mistakes_select(X, y, 3, search=ExhaustiveSearch(), rng=k, gap_check="warn",
                                **kw).value
        assert a == b


@pytest.mark.parametrize("seed", [8, 9])
def test_kswap_bounds_exact_and_valid(seed):
    "k <= 2: the bound IS the OLS RSS (lstsq); every k: the bound never exceeds the exact score."
    X, y, _ = bss_data(60, 10, 4, rho=0.7, snr=1.0, rng=seed)
    G, b, yy = X.T @ X, X.T @ y, float(y @ y)
    E, ve = enumerate_supports(X, y, 4, r=1.1)
    score = {tuple(S): v for S, v in zip(E, ve)}
    for k in range(1, 5):
        C, L = kswap_candidates(G, b, yy, E[0], k, np.inf, margin=0.0, max_candidates=10 ** 6)
        assert len(C) == math.comb(6, k) * math.comb(4, k)
        assert all(lo <= score[tuple(S)] + 1e-9 * yy for S, lo in zip(C, L))
        if k <= 2:
            rss = [float(np.sum((y - X[:, S] @ np.linalg.lstsq(X[:, S], y, rcond=None)[0]) ** 2))
                   for S in C]
            np.testing.assert_allclose(L, rss, rtol=0, atol=1e-9 * yy)
