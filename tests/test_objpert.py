"""Objective perturbation (nbs/54_objpert.ipynb, issue 26): scikit-learn conformance, inputs refused before
any draw, clipping announced, the fitted state, the accountant, and the calibration against the derivation."""
import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_estimator

from dplit import ObjectivePerturbationRegressor, objective_perturbation
from dplit.core import ClippingWarning
from dplit.objpert import _ball_argmin, exact_loss_1d, op_calibration

G = np.random.default_rng(7)
X = G.uniform(-0.5, 0.5, (200, 3))
Y = np.clip(X @ np.array([0.5, -0.3, 0.0]) + 0.05 * G.normal(size=200), -0.5, 0.5)


class Untouched(np.random.Generator):
    "A generator that fails the test if anything draws from it."

    def __init__(self):
        super().__init__(np.random.PCG64(0))

    def __getattribute__(self, name):
        if not name.startswith("_") and name not in ("bit_generator", "spawn"):
            raise AssertionError(f"a random draw ({name}) before the refusal")
        return object.__getattribute__(self, name)


def test_check_estimator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator(ObjectivePerturbationRegressor(random_state=0), on_fail=None)
    failed = [r["check_name"] for r in res if r["status"] == "failed"]
    assert not failed, failed


@pytest.mark.parametrize("kw, name", [
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=math.nan), "epsilon"),
    (dict(b_x=-1.0), "b_x"), (dict(b_y=0.0), "b_y"), (dict(r=math.inf), "r"),
    (dict(jacobian_share=1.0), "jacobian_share"), (dict(jacobian_share="0.5"), "jacobian_share"),
    (dict(size=0), "size"), (dict(size=2.0), "size"), (dict(clip="True"), "clip"),
    (dict(X=np.full((3, 2), np.nan)), "X"), (dict(y=np.ones(5)), "y"),
])
def test_bad_inputs_refused_before_any_draw(kw, name):
    args = dict(X=X[:10, :2], y=Y[:10], epsilon=1.0, b_x=0.5, b_y=0.5, r=1.0)
    args.update(kw)
    with pytest.raises((ValueError, TypeError)) as exc:
        objective_perturbation(**args, rng=Untouched())
    assert name in str(exc.value)


def test_clip_false_refuses_data_outside_the_bounds():
    with pytest.raises(ValueError, match="clip=False"):
        objective_perturbation(3 * X, Y, 1.0, b_x=0.5, b_y=0.5, r=1.0, clip=False,
                               rng=Untouched())


def test_clipping_warns_once_outside_and_never_inside():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        objective_perturbation(X, Y, 1.0, b_x=0.5, b_y=0.5, r=1.0, rng=0)
    assert not [x for x in w if issubclass(x.category, ClippingWarning)]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ObjectivePerturbationRegressor(b_x=0.5, b_y=0.5, random_state=0).fit(3 * X, 3 * Y)
    assert len([x for x in w if issubclass(x.category, ClippingWarning)]) == 1


def test_fitted_state_is_the_release_only():
    est = ObjectivePerturbationRegressor(b_x=0.5, b_y=0.5, random_state=1).fit(X, Y)
    assert sorted(k for k in vars(est) if k.endswith("_")) == ["coef_", "n_features_in_", "spend_"]
    blob = pickle.dumps(est)
    assert all(np.float64(v).tobytes() not in blob for v in X[:20].ravel())
    assert est.spend_.epsilon == 1.0 and est.spend_.delta == 0.0
    assert est.spend_.relation == "substitute"


def test_seed_and_fresh_noise():
    a = ObjectivePerturbationRegressor(random_state=3).fit(X, Y).coef_
    b = ObjectivePerturbationRegressor(random_state=3).fit(X, Y).coef_
    c = clone(ObjectivePerturbationRegressor()).fit(X, Y).coef_
    d = clone(ObjectivePerturbationRegressor()).fit(X, Y).coef_
    assert np.array_equal(a, b) and not np.array_equal(c, d)
    with pytest.raises(TypeError, match="random_state"):
        ObjectivePerturbationRegressor(random_state=np.random.default_rng(0)).fit(X, Y)


def test_accountant_is_charged_before_the_draw():
    from dplit.accountant import BudgetAccountant, BudgetExceededError
    acc = BudgetAccountant(epsilon=1.5, delta=0.0, relation="substitute")
    ObjectivePerturbationRegressor(accountant=acc, random_state=0).fit(X, Y)
    with pytest.raises(BudgetExceededError):
        ObjectivePerturbationRegressor(accountant=acc, random_state=0).fit(X, Y)


def test_release_inside_the_ball_and_finite():
    out = objective_perturbation(X, Y, 0.01, b_x=0.5, b_y=0.5, r=0.7, rng=0, size=2000).value
    assert np.all(np.isfinite(out)) and np.linalg.norm(out, axis=1).max() <= 0.7 * (1 + 1e-12)


def test_calibration_against_the_derivation():
    # s = 5, b_x = b_y = 0.5, r = 1.1 (the experiments): rho = sqrt(5) / 2
    c = op_calibration(5, 1.0, b_x=0.5, b_y=0.5, r=1.1)
    rho = math.sqrt(5) / 2
    assert math.isclose(c["zeta"], 2 * rho * (rho * 1.1 + 0.5))
    assert math.isclose(c["change"], 2 * rho ** 2 * 1.1 + 2 * rho)
    assert math.isclose(c["lam"], 2.5)
    assert math.isclose(c["Delta"], 2.5 / math.expm1(0.5))
    assert math.isclose(c["beta"], c["change"] / 0.5)
    # the split: the noise and Jacobian factors multiply to exactly e^eps
    assert math.isclose(c["change"] / c["beta"] + math.log1p(c["lam"] / c["Delta"]), 1.0)


def test_exact_1d_loss_within_epsilon_and_mutants_above():
    # an independent truth: the closed-form law for s = 1 (Laplace noise, clipped ratio)
    g = np.random.default_rng(0)
    for _ in range(30):
        d = [(g.uniform(-2, 2, 3), g.uniform(-2, 2, 3)) for _ in range(2)]
        d[1][0][1:], d[1][1][1:] = d[0][0][1:], d[0][1][1:]          # neighbours
        for share in (0.2, 0.5, 0.8):
            assert exact_loss_1d(*d, 1.0, b_x=1.0, b_y=0.3, r=1.0,
                                 jacobian_share=share, grid=4001) <= 1.0 + 1e-9
    pair = (np.zeros(1), np.zeros(1)), (np.ones(1), np.full(1, -0.01))
    kw = dict(b_x=1.0, b_y=0.01, r=1.0, jacobian_share=0.3)
    assert exact_loss_1d(*pair, 2.0, **kw, noise=0.5) > 2.5


def test_ball_argmin_matches_a_dense_search_in_1d():
    # s = 1: the minimiser is clip(q / Q, -r, r)
    for Q, q, r in [(2.0, 5.0, 1.0), (2.0, -0.3, 1.0), (0.5, -3.0, 2.0)]:
        t = _ball_argmin(np.array([[Q]]), np.array([[q]]), r)[0, 0]
        assert math.isclose(t, float(np.clip(q / Q, -r, r)), rel_tol=1e-12)


def _noise_law_pvalues(s, m=20_000, seed=11):
    """KS p-values of the released noise, s > 1: its norm against Gamma(s, beta) (truncated by the
    ball), and the squared first coordinate of its direction against Beta(1/2, (s - 1) / 2)."""
    from scipy import stats
    kw = dict(b_x=0.5, b_y=0.01, r=1.0, jacobian_share=0.05)    # most draws inside the ball
    cal = op_calibration(s, 1.0, **kw)
    # one row of zeros: the release is -b / Delta when that is inside the ball, else on the sphere
    # along -b; so the direction is always b's and the norm is b's, truncated at r * Delta
    th = objective_perturbation(np.zeros((1, s)), np.zeros(1), 1.0, **kw, rng=seed, size=m).value
    nrm = np.linalg.norm(th, axis=1)
    inner = cal["Delta"] * nrm[nrm < kw["r"] * (1 - 1e-9)]
    law = stats.gamma(s, scale=cal["beta"])
    top = law.cdf(kw["r"] * cal["Delta"])
    p_norm = stats.kstest(inner, lambda v: law.cdf(v) / top).pvalue
    p_dir = stats.kstest((th[:, 0] / nrm) ** 2, stats.beta(0.5, (s - 1) / 2).cdf).pvalue
    return p_norm, p_dir, len(inner) / m


@pytest.mark.parametrize("s", [2, 5])
def test_noise_has_a_gamma_norm_and_a_uniform_direction(s):
    # independent truth: a density proportional to exp(-||b|| / beta) in R^s has a Gamma(s, beta)
    # norm (polar coordinates) and a uniform direction, whose squared coordinate is Beta(1/2,
    # (s-1)/2); s = 1 (Laplace) is checked against the exact law in the chapter
    p_norm, p_dir, inside = _noise_law_pvalues(s)
    assert inside > 0.5, inside                      # enough draws in the interior to test
    assert p_norm > 1e-3 and p_dir > 1e-3, (p_norm, p_dir)
