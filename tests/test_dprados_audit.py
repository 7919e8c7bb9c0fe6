"""Privacy audits of DP-Feat (dplit.dprados; Nock, Patrini & Friedman (2015), Algorithm 2) on j*-neighbouring samples.

What is released and audited: the coordinate j* (the boolean sensitive feature) of DP-Feat rados — the object of
Theorem 6 as re-derived in nbs/32_dprados.ipynb (the other coordinates are not protected; see the chapter).
Neighbours: S and S' differ in the value of feature j* of one example (a +1 edge coordinate becomes -1); the exact
privacy loss depends on S only through m, so every such pair is a worst case. m = 40, eps = 2.
Claims: per rado (eps/2, delta_beta) [derived, tight] and (eps, delta_beta) [Theorem 6 with the exact delta];
n = 5 rados (n eps/2, 1 - (1 - delta_beta)^n), statistic: the largest of the 5 j* coordinates. Mutants: beta computed with eps/2 (narrower window) and an off-centre
window (m_+ counted on x_ij* instead of the edges y_i x_ij*) violate the claim and are caught. beta computed with 2 eps is provably *not* less private
(exact check below), so it is not an audit target. 100,000 runs per side, vectorised: a few seconds per audit."""
import math

import numpy as np
import pytest

from dplit.audit import audit
from dplit.dprados import (audit_pair, dp_feat_K_pmfs, dp_feat_coordinate_mechanism, dp_feat_guarantee, hockey_stick)

M, EPS, N_TRIALS = 40, 2.0, 100_000


def _audit(n_rados, claim_eps, claim_delta, mutant=None, seed=0):
    d0, d1 = audit_pair(M, rng=seed)
    return audit(dp_feat_coordinate_mechanism(EPS, n_rados, mutant), d0, d1, epsilon=claim_eps, delta=claim_delta,
                 n_trials=N_TRIALS, vectorized=True, rng=seed + 1)


def test_one_rado_passes_tight_claim():
    g = dp_feat_guarantee(M, EPS)
    res = _audit(1, EPS / 2, g["delta"])
    assert res.passed, str(res)


def test_one_rado_passes_theorem6_claim():
    g = dp_feat_guarantee(M, EPS)
    res = _audit(1, EPS, g["delta"], seed=10)
    assert res.passed, str(res)


def test_n_rados_pass_composed_claim():
    g = dp_feat_guarantee(M, EPS, n=5)
    res = _audit(5, g["epsilon_n"], g["delta_n"], seed=20)
    assert res.passed, str(res)


@pytest.mark.parametrize("mutant", ["beta_half_eps", "centre_from_x"])
def test_mutant_caught_one_rado(mutant):
    g = dp_feat_guarantee(M, EPS)
    res = _audit(1, EPS / 2, g["delta"], mutant=mutant, seed=30)
    assert not res.passed, str(res)


@pytest.mark.parametrize("mutant", ["beta_half_eps", "centre_from_x"])
def test_mutant_caught_n_rados(mutant):
    g = dp_feat_guarantee(M, EPS, n=5)
    res = _audit(5, g["epsilon_n"], g["delta_n"], mutant=mutant, seed=40)
    assert not res.passed, str(res)


def test_beta_2eps_is_not_less_private():
    # exact: the 2*eps window is wider, its ends lighter; its delta at eps/2 is below the correct mechanism's delta_beta
    for m in (20, 40, 100, 400):
        for eps in (1.0, 2.0, 4.0):
            g = dp_feat_guarantee(m, eps)
            assert hockey_stick(*dp_feat_K_pmfs(m, 2 * eps), eps / 2) <= g["delta"]
