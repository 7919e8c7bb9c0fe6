"""Privacy audits of Boosted AdaSSP (nbs/14_boosted_adassp.ipynb) with the dplit harness (95% Clopper-Pearson).

Worst-case add/remove pair (`audit_designs`): base raw rows +-10 e_1 (label 0) and the same plus the all-zero-features
row with label 1e6. After the intercept is appended and rows are clipped, the added row is e_int: it moves the
intercept's diagonal Gram entry by exactly 1, lambda_min by exactly 1, and (its residual clipped to +1 in every round)
each round's gradient by e_int. Every release is thus at its sensitivity.

Claims audited, each at one point (eps_a, delta_mu(eps_a)) of the mu-GDP trade-off curve:
* the Gram release alone is mu_1-GDP;
* one boosting round alone is mu_round-GDP;
* the whole transcript of 2 + T releases is mu-GDP (statistic: the log-likelihood ratio of the transcript, computed
  with the claimed noise scales; it is the optimal test, so the bound is close to the claim).
Mutants caught: half the noise; the GDP mu used as a noise multiplier (sigma = Delta mu, the Amazon code); the same
noise for every release (sigma = Delta / mu: no composition). F-B7: a substitution pair on an add/remove-calibrated
round is caught too (sensitivity 2, not 1).
"""
import numpy as np
import pytest

from dplit.audit import audit
from dplit.boosted_adassp import (audit_budget, audit_designs, bas_budget, bas_release, design, gdp_delta,
                                  gram_audit_mechanism, gram_statistics)

D0, D1 = audit_designs()
VARIANTS = ("correct", "half", "mu_as_multiplier", "no_composition")


def _sigmas(b, variant):
    "Noise scales (gram, lmin, round) of a variant of the calibration `b`."
    if variant == "correct":
        return b.sigma_gram, b.sigma_lmin, b.sigma_round
    if variant == "half":
        return b.sigma_gram / 2, b.sigma_lmin / 2, b.sigma_round / 2
    if variant == "mu_as_multiplier":
        return b.sens_gram * b.mu, b.sens_lmin * b.mu, b.sens_round * b.mu
    return b.sens_gram / b.mu, b.sens_lmin / b.mu, b.sens_round / b.mu


def test_pair_attains_every_sensitivity():
    X0, X1 = design(D0[0]), design(D1[0])
    (G0, l0), (G1, l1) = gram_statistics(X0), gram_statistics(X1)
    dG = G1 - G0
    assert abs(dG[-1, -1] - 1) < 1e-12 and np.abs(dG).sum() - abs(dG[-1, -1]) < 1e-12
    assert abs((l1 - l0) - 1) < 1e-12
    assert np.allclose(X1[-1], [0.0, 1.0])


@pytest.mark.parametrize("variant", VARIANTS)
def test_gram_release(variant):
    b = audit_budget(0.5)
    claim = gdp_delta(b.mu_gram, 0.5)
    res = audit(gram_audit_mechanism(b, variant), D0, D1, epsilon=0.5, delta=claim, vectorized=True, rng=11)
    assert res.passed == (variant == "correct"), str(res)


def _round_mechanism(b, variant, labels=None):
    "First boosting round's gradient (intercept coordinate) through bas_release, observer-captured."
    sg, sl, sr = _sigmas(b, variant)

    def mech(data, g, n):
        X, y = data
        seen = []
        bas_release(design(X), y, sg, sl, sr, n_rounds=1, rng=g, size=n,
                    observer=lambda t, theta, grad: seen.append(grad[:, -1].copy()))
        return seen[0]
    return mech


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_boosting_round(variant):
    b = audit_budget(3.0)                      # mu_round = 3 / sqrt(300) = 0.173
    claim = gdp_delta(b.mu_round, 0.2)
    res = audit(_round_mechanism(b, variant), D0, D1, epsilon=0.2, delta=claim, vectorized=True, rng=12)
    assert res.passed == (variant == "correct"), str(res)


def _transcript_llr(b, variant, T):
    "Log-likelihood ratio (D1 vs D0) of the whole transcript, with the claimed scales of `b`."
    sg, sl, sr = _sigmas(b, variant)
    X0, y0 = design(D0[0]), D0[1]
    G0, l0 = gram_statistics(X0)
    shift_l = gram_statistics(design(D1[0]))[1] - l0

    def mech(data, g, n):
        acc = np.zeros(n)

        def observe(t, theta, grad):
            m0 = np.clip(y0[None, :] - theta @ X0.T, -1, 1) @ X0      # D0's mean given theta
            acc[:] += (grad[:, -1] - m0[:, -1] - 0.5) / b.sigma_round**2
        run = bas_release(design(data[0]), data[1], sg, sl, sr, n_rounds=T, rng=g, size=n, observer=observe)
        acc += (run.gram[:, -1, -1] - G0[-1, -1] - 0.5) / b.sigma_gram**2
        acc += shift_l * (run.lam_tilde - l0 - shift_l / 2) / b.sigma_lmin**2
        return acc
    return mech


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_transcript(variant):
    T = 100
    b = audit_budget(0.8, T)                   # mu != 1, so that Delta*mu and Delta/mu differ
    claim = gdp_delta(b.mu, 1.0)
    res = audit(_transcript_llr(b, variant, T), D0, D1, epsilon=1.0, delta=claim, n_trials=100_000,
                vectorized=True, rng=13)
    assert res.passed == (variant == "correct"), str(res)


def test_substitution_pair_breaks_add_remove_calibration():
    """F-B7: the same row with label +1e6 vs -1e6 (residual +1 vs -1) moves a round's gradient by 2. The add/remove
    calibration must fail this audit; the substitution calibration (sensitivity 2) must pass it."""
    p = D0[0]
    Xs = np.vstack([p, np.zeros((1, 1))])
    pos, neg = (Xs, np.append(D0[1], 1e6)), (Xs, np.append(D0[1], -1e6))
    for relation, should_pass in (("add/remove", False), ("substitute", True)):
        b = bas_budget(1.0, gdp_delta(3.0, 1.0), 100, relation=relation)
        claim = gdp_delta(b.mu_round, 0.2)
        res = audit(_round_mechanism(b, "correct"), pos, neg, epsilon=0.2, delta=claim, vectorized=True, rng=14)
        assert res.passed == should_pass, (relation, str(res))


class _ReplayRounds(np.random.Generator):
    "Mutant randomness: every boosting round after the first reuses the first round's noise draw."

    def __init__(self, bit_generator, round_shape):
        super().__init__(bit_generator)
        self._shape, self._first = round_shape, None

    def normal(self, loc=0.0, scale=1.0, size=None):
        if size == self._shape:
            if self._first is None:
                self._first = super().normal(loc, scale, size)
            return self._first
        return super().normal(loc, scale, size)


def _two_round_difference(b, reuse):
    """Statistic |g_2 - g_1 - (what D0 predicts for it)| on the intercept coordinate, from the transcript of a T = 2
    run (theta_1 is post-processing of the releases). With fresh noise per round it is a noisy difference; with the
    noise of round 1 reused it is exactly 0 on D0 and |clip(-theta_1,int)| > 0 on D1 (the added row, label 0, only
    starts to contribute in round 2)."""
    X0, y0 = design(D0[0]), D0[1]

    def mech(data, g, n):
        X, y = design(data[0]), data[1]
        rng = _ReplayRounds(g.bit_generator, (n, X.shape[1])) if reuse else g
        seen = {}
        bas_release(X, y, b.sigma_gram, b.sigma_lmin, b.sigma_round, n_rounds=2, rng=rng, size=n,
                    observer=lambda t, theta, grad: seen.update({t: (theta.copy(), grad.copy())}))
        (th0, g1), (th1, g2) = seen[1], seen[2]
        pred = (np.clip(y0[None, :] - th1 @ X0.T, -1, 1) - np.clip(y0[None, :] - th0 @ X0.T, -1, 1)) @ X0
        return np.abs(g2 - g1 - pred)[:, -1]
    return mech


@pytest.mark.parametrize("reuse", [False, True])
def test_same_noise_draw_every_round_is_caught(reuse):
    """The literal "same noise for every release" mutant (one draw reused, not just one scale): the transcript of a
    T = 2 run is audited against its mu-GDP claim on D0 vs D0 + (zero row, label 0)."""
    b = audit_budget(1.0, 2)
    d1 = (np.vstack([D0[0], np.zeros((1, 1))]), np.append(D0[1], 0.0))
    res = audit(_two_round_difference(b, reuse), D0, d1, epsilon=1.0, delta=gdp_delta(b.mu, 1.0),
                vectorized=True, rng=15)
    assert res.passed == (not reuse), str(res)
