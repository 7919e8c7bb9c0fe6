"""Issue 25: the compiled Tukey shuffle and the leaner Boosted AdaSSP wrapper release exactly what
the plain-Python / scipy reference computations release, seed for seed."""
import math

import numpy as np
import pytest
from scipy import linalg, stats

from dplit.boosted_adassp import (_boost_single, _clipped_gradient, _system_inverse,
                                  boosted_adassp, ridge_from_release)
from dplit.tukey import inside_out_permutation, make_batches


def _shuffle_reference(n, seed):
    "The inside-out Fisher-Yates loop in plain Python (the chapter's original code)."
    u = np.random.default_rng(seed).random(n)
    a = np.empty(n, dtype=np.int64)
    for i in range(n):
        j = int(u[i] * (i + 1))
        a[i] = a[j]
        a[j] = i
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 50_000])
def test_shuffle_equals_python_loop(n):
    for seed in range(5):
        got = inside_out_permutation(n, seed)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _shuffle_reference(n, seed))
        np.testing.assert_array_equal(np.sort(got), np.arange(n))   # a permutation


def test_batches_follow_the_shuffle():
    B = make_batches(1000, 7, 100, 3)
    np.testing.assert_array_equal(B, _shuffle_reference(1000, 3)[:700].reshape(7, 100))


def _boost_reference(Xc, y, A, sigma_round, n_rounds, eta, clip_r, g):
    "The T rounds with scipy's cho_solve (the wrapper's original solve)."
    try:
        fac = linalg.cho_factor(A, lower=True, check_finite=False)
        solve = lambda v: linalg.cho_solve(fac, v, check_finite=False)
    except linalg.LinAlgError:
        Ainv = _system_inverse(A[None])[0][0]
        solve = lambda v: Ainv @ v
    theta = np.zeros(Xc.shape[1])
    noise = g.normal(0.0, sigma_round, (n_rounds, Xc.shape[1]))
    for t in range(n_rounds):
        theta = theta + eta * solve(_clipped_gradient(Xc, y, theta, clip_r) + noise[t])
    return theta


@pytest.mark.parametrize("indefinite", [False, True])
def test_boost_single_equals_cho_solve(indefinite):
    g = np.random.default_rng(0)
    Xc = g.uniform(-0.4, 0.4, (200, 4))
    y = Xc @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * g.standard_normal(200)
    A = Xc.T @ Xc + (np.diag([1.0, 1.0, 1.0, -50.0]) if indefinite else np.eye(4))
    for seed in range(5):
        a = _boost_single(Xc, y, A, 0.3, 50, 1.0, 1.0, np.random.default_rng(seed))
        b = _boost_reference(Xc, y, A, 0.3, 50, 1.0, 1.0, np.random.default_rng(seed))
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("rho", [1e-9, 0.01, 0.05, 0.2, 0.4999])
def test_adassp_ridge_equals_norm_isf(rho):
    lam = np.array([-3.0, 0.0, 0.7, 5.0])
    d, sg, sl = 6, 0.8, 0.3
    z, c = float(stats.norm.isf(rho)), 2 * math.sqrt(d) + 2 * math.sqrt(-math.log(rho))
    ref = np.maximum(0.0, c * sg - np.maximum(0.0, lam - z * sl))
    np.testing.assert_array_equal(ridge_from_release(lam, sg, sl, d, "adassp", rho), ref)


def test_wrapper_release_is_reproducible():
    g = np.random.default_rng(1)
    X = g.uniform(-0.3, 0.3, (200, 5))
    y = X @ np.ones(5) * 0.2 + 0.05 * g.standard_normal(200)
    a, b = boosted_adassp(X, y, 1.0, 1e-5, rng=7), boosted_adassp(X, y, 1.0, 1e-5, rng=7)
    np.testing.assert_array_equal(a.coef, b.coef)
    assert a.intercept == b.intercept
