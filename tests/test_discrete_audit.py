"""Exact-loss checks and discrete Gaussian audits of the exact discrete releases (nbs/07_discrete.ipynb). The discrete
Laplace audits are registered in the chapter (`discrete_laplace`, `discrete_laplace_ties`) and run by
tests/test_audit_registry.py.

Worst case: a scalar statistic moves by its full sensitivity 1 and, with the grid gamma = 1/4, its rounded value
moves by exactly K = 4 grid steps; for the discrete Laplace the tail events {y >= c} then have probability ratio
exactly e^eps (the pair's exact loss is eps). The exact samplers run in Python, so the audits use 20,000 runs per
side (5,000 pilot), which is enough to catch the half-noise mutants (exact loss 2 eps). The subtler mutant -- a
grid sensitivity of Delta/gamma without the ceiling -- has an exact loss of 1.2 eps on its worst pair, which this
sample size cannot resolve; it is checked by exact computation instead."""
import math
from fractions import Fraction

import numpy as np
import pytest

from dplit import discrete as D
from dplit.discrete import (discrete_gaussian, discrete_gaussian_mechanism, discrete_gaussian_sigma,
                            discrete_log_pmf, grid_sensitivity)

GAMMA = 0.25


def test_grid_ceiling_mutant_exact_loss():
    """Delta = 1, gamma = 0.3: the values 0.1 and 1.1 round to 0 and 4 grid steps. With the correct K = 4 the
    exact worst log-ratio of the two output pmfs is eps; with the mutant K = 1/0.3 it is 1.2 eps."""
    eps, gam = 1.0, 0.3
    y = np.arange(-200, 201)
    for K, expected in ((grid_sensitivity(1.0, gam), eps), (1.0 / gam, 1.2 * eps)):
        t = K / eps
        loss = np.max(np.abs(discrete_log_pmf(y, "laplace", t) - discrete_log_pmf(y - 4, "laplace", t)))
        assert loss == pytest.approx(expected, rel=1e-9)
    assert round(0.1 / gam) == 0 and round(1.1 / gam) == 4


def test_tie_pair_exact_loss():
    """0.125 and 0.375 are one grid step apart (gamma = 0.25). Exact rounding puts them one step apart (loss eps);
    np.rint (ties to even) two steps apart (loss 2 eps at the claimed K = 1)."""
    eps, y = 1.0, np.arange(-100, 101)
    for ints, expected in ((D.grid_round(np.array([0.125, 0.375]), GAMMA), eps),
                           (np.rint(np.array([0.125, 0.375]) / GAMMA), 2 * eps)):
        t = grid_sensitivity(GAMMA, GAMMA) / eps
        lp = discrete_log_pmf(y - ints[0], "laplace", t) - discrete_log_pmf(y - ints[1], "laplace", t)
        assert np.max(np.abs(lp)) == pytest.approx(expected, rel=1e-9)


def _scalar_gauss(eps, delta, sigma_factor=1.0):
    K = grid_sensitivity(1.0, GAMMA, norm="l2")
    s = discrete_gaussian_sigma(K, eps, delta) * sigma_factor
    def run(x, g, n):
        return GAMMA * (D.grid_round(x, GAMMA) + discrete_gaussian(D.sigma2_up(s), size=n, rng=g))
    return run


def test_scalar_gauss_helper_is_the_mechanism():
    for seed in range(5):
        a = discrete_gaussian_mechanism(0.3, 1.0, 1.0, 1e-5, GAMMA, rng=seed).value
        assert float(a) == float(_scalar_gauss(1.0, 1e-5)(0.3, np.random.default_rng(seed), 1)[0])


def test_discrete_gaussian_half_noise_exact():
    """The pair's exact delta at the claimed eps: within the target for the calibrated sigma, far above it for
    sigma / 2 (20,000 runs cannot resolve this mutant empirically: the zCDP calibration is conservative, so the
    half-noise mutant is only about 2x over at eps = 1; the registered audit `discrete_gaussian` draws 10^6 runs from
    the exact law)."""
    K = int(grid_sensitivity(1.0, GAMMA, norm="l2"))
    s = discrete_gaussian_sigma(K, 1.0, 1e-5)
    assert D.discrete_gaussian_exact_delta(s, K, 1.0) <= 1e-5
    assert D.discrete_gaussian_exact_delta(s / 2, K, 1.0) > 100 * 1e-5


def _dlap_keeps_minus_zero(scale, bits):
    "Mutant of CKS Algorithm 2: -0 is not rejected, so 0 is counted twice."
    p, q = scale.numerator, scale.denominator
    while True:
        u = bits.uniform_int(p)
        if not D.bernoulli_exp(Fraction(u, p), bits):
            continue
        v = 0
        while D.bernoulli_exp(Fraction(1), bits):
            v += 1
        y = (u + p * v) // q
        return -y if bits.uniform_int(2) == 1 else y


def _dgauss_drops_2(sigma2, bits):
    "Mutant of CKS Algorithm 3: the acceptance exponent misses its factor 1/2."
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    while True:
        y = D._dlap_one(Fraction(t), bits)
        a = abs(y) - sigma2 / t
        if D.bernoulli_exp(a * a / sigma2, bits):
            return y


@pytest.mark.parametrize("draw,law,param", [(_dlap_keeps_minus_zero, "laplace", Fraction(3, 2)),
                                            (_dgauss_drops_2, "gaussian", Fraction(2)),
                                            (_dgauss_drops_2, "gaussian", Fraction(30))])
def test_sampler_transcription_mutants_rejected(draw, law, param):
    "The chi-square check of the notebook (same n = 5,000, same threshold 1e-3) rejects subtle transcription bugs."
    bits = D.ExactBits(0)
    x = np.array([draw(param, bits) for _ in range(5_000)])
    assert D._gof_pvalue(x, law, float(param)) < 1e-3
    ok = np.array([(D._dlap_one if law == "laplace" else D._dgauss_one)(param, bits) for _ in range(5_000)])
    assert D._gof_pvalue(ok, law, float(param)) > 1e-3
