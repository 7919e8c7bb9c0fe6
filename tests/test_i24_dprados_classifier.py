"""Issue 24: DPRadoBoostClassifier (Nock, Patrini & Friedman (2015), §5.2) — its noise against an independent
computation of the sensitivity and of the Gaussian privacy profile, its recorded spend and relation, bad input
refused before any draw, clipping never silent, and its spend known before fitting (so an accountant can charge it)."""
import itertools
import math
import warnings

import numpy as np
import pytest

import dplit
from dplit.core import ClippingWarning
from dplit.dprados import DPRadoBoostClassifier, dp_radoboost_sigma

from _rules_registry import DrawRecorder

G = np.random.default_rng(2024)
X = G.uniform(-0.9, 0.9, size=(80, 2))
Y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.1 * G.normal(size=80) > 0, 1, 0)


def _fit(**kw):
    return DPRadoBoostClassifier(n_rados=20, T=10, random_state=0, **kw).fit(X, Y)


def test_sensitivity_is_the_largest_edge_move_over_every_corner():
    "Brute force over the corners of [-B, B]^d and both labels: the largest move of y (x, B) is 2 B sqrt(d + 1)."
    from dplit.mechanisms import analytic_gaussian_sigma
    B, d, eps, dlt = 0.7, 2, 1.3, 1e-4
    corners = [np.r_[c, B] for c in itertools.product((-B, B), repeat=d)]
    worst = max(np.linalg.norm(y * a - z * b) for a in corners for b in corners for y in (-1, 1) for z in (-1, 1))
    assert math.isclose(worst, 2 * B * math.sqrt(d + 1), rel_tol=1e-12)
    assert math.isclose(dp_radoboost_sigma(eps, dlt, B, d + 1), analytic_gaussian_sigma(worst, eps, dlt),
                        rel_tol=1e-12)


@pytest.mark.parametrize("eps,dlt,icpt", [(0.5, 1e-5, True), (4.0, 1e-3, False)])
def test_spend_is_the_gaussian_profile_of_the_noise(eps, dlt, icpt):
    """The recorded Gaussian event's exact privacy profile (Balle & Wang 2018, Thm 8, evaluated here with scipy),
    delta(eps) = Phi(1/(2z) - eps z) - e^eps Phi(-1/(2z) - eps z) with z = sigma / sensitivity, gives back the
    claimed delta: the noise is not short (delta(eps) <= delta) and not padded (>= 0.999 delta)."""
    from scipy.stats import norm
    est = _fit(epsilon=eps, delta=dlt, fit_intercept=icpt)
    s = est.spend_
    assert (s.epsilon, s.delta, s.relation) == (eps, dlt, "substitute")
    assert est.sigma_ == dp_radoboost_sigma(eps, dlt, 1.0, X.shape[1] + icpt)
    (event,) = s.events
    z = event.noise_multiplier
    assert math.isclose(z, est.sigma_ / (2 * math.sqrt(X.shape[1] + icpt)), rel_tol=1e-12)
    profile = norm.cdf(1 / (2 * z) - eps * z) - math.exp(eps) * norm.cdf(-1 / (2 * z) - eps * z)
    assert 0.999 * dlt <= profile <= dlt * (1 + 1e-9), profile
    assert est.expected_spend(X.shape[1]) == s


@pytest.mark.parametrize("param,bad", [("epsilon", 0.0), ("epsilon", math.nan), ("delta", 0.0), ("delta", 1.0),
                                       ("feature_bound", -1.0), ("feature_bound", math.inf), ("support", 0.0),
                                       ("support", 1.5), ("n_rados", 0), ("T", 0), ("wfi", "worst"),
                                       ("kappa", 0.5), ("keep", "train_error"), ("fit_intercept", "yes")])
def test_bad_parameters_refused_by_name_before_any_draw(param, bad, monkeypatch):
    rec = DrawRecorder(monkeypatch)
    with pytest.raises((ValueError, TypeError), match=param):
        DPRadoBoostClassifier(**{param: bad}).fit(X, Y)
    assert rec.untouched()


def test_bad_data_and_generator_refused_before_any_draw(monkeypatch):
    rec = DrawRecorder(monkeypatch)
    Xn = X.copy(); Xn[3, 1] = np.nan
    with pytest.raises(ValueError):
        DPRadoBoostClassifier().fit(Xn, Y)
    with pytest.raises(ValueError, match="binary"):
        DPRadoBoostClassifier().fit(X, np.arange(80) % 3)
    with pytest.raises(TypeError, match="random_state"):
        DPRadoBoostClassifier(random_state=np.random.default_rng(0)).fit(X, Y)
    assert rec.untouched()


def test_clipping_warns_once_outside_the_bound_and_never_inside():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _fit()
        assert not [x for x in w if issubclass(x.category, ClippingWarning)]
        DPRadoBoostClassifier(n_rados=20, T=10, random_state=0).fit(3 * X, Y)
    clip = [x for x in w if issubclass(x.category, ClippingWarning)]
    assert len(clip) == 1 and "entries of X" in str(clip[0].message)


def test_prediction_applies_the_public_design():
    est = _fit()
    Z = 5 * X
    assert np.array_equal(est.decision_function(Z), np.clip(Z, -1, 1) @ est.coef_ + est.intercept_)
    assert set(est.predict(X)) <= set(est.classes_)


def test_charged_by_an_accountant_before_the_draw(monkeypatch):
    from dplit.accountant import BudgetAccountant, BudgetExceededError, charged_fit
    acc = BudgetAccountant(epsilon=1.0, delta=1e-4, relation="substitute", tight=False)
    est = charged_fit(acc, DPRadoBoostClassifier(epsilon=0.6, delta=5e-5, n_rados=20, T=5), X, Y)
    assert acc.spent.epsilon == est.spend_.epsilon == 0.6
    rec = DrawRecorder(monkeypatch)
    with pytest.raises(BudgetExceededError):        # 0.6 + 0.6 > 1 under basic composition
        charged_fit(acc, DPRadoBoostClassifier(epsilon=0.6, delta=5e-5, n_rados=20, T=5), X, Y)
    assert rec.untouched() and len(acc.ledger) == 1


def test_front_door_and_not_private_baselines_say_so():
    assert dplit.DPRadoBoostClassifier is DPRadoBoostClassifier
    for cls in (dplit.RadoBoostClassifier, dplit.AdaBoostExamplesClassifier):
        assert cls.__doc__.splitlines()[0].startswith("Not private"), cls.__name__


def test_public_classes_make_the_label_pair_data_independent(monkeypatch):
    """With `classes` the label pair is a parameter: a one-label y fits (no data-dependent refusal), classes_ is the
    given pair (sorted), and on y holding both labels the fit equals the one that reads the pair from y."""
    ref = _fit()
    for pair in ((0, 1), [1, 0]):
        est = _fit(classes=pair)
        assert np.array_equal(est.classes_, [0, 1]) and np.array_equal(est.coef_, ref.coef_)
    with pytest.raises(ValueError, match="binary"):
        DPRadoBoostClassifier(n_rados=5, T=2, random_state=0).fit(X, np.zeros(80, int))
    one = DPRadoBoostClassifier(n_rados=5, T=2, random_state=0, classes=(0, 1)).fit(X, np.zeros(80, int))
    assert np.array_equal(one.classes_, [0, 1]) and set(one.predict(X)) <= {0, 1}
    rec = DrawRecorder(monkeypatch)
    for bad, y in [((1, 1), Y), ((0, 1, 2), Y), ((0, math.nan), Y), ((0, 1), np.where(Y > 0, 2, 0))]:
        with pytest.raises(ValueError, match="classes"):
            DPRadoBoostClassifier(classes=bad).fit(X, y)
    assert rec.untouched()
