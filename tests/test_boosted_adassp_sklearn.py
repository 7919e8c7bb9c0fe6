"""scikit-learn conformance of BoostedAdaSSPRegressor (sklearn.utils.estimator_checks), pipeline use, seeding and
the spend.

No check is marked as an expected failure. The estimator declares `non_deterministic=True` (each fit is a fresh
private release) and `poor_score=True` (at the default epsilon = 1 on the checks' tiny datasets a private fit is not
expected to reach R^2 > 0.5); with a fixed `random_state` two fits are identical (tested below)."""
import math

import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from dplit.boosted_adassp import BoostedAdaSSPRegressor, gdp_delta
from dplit.core import compose


@parametrize_with_checks([BoostedAdaSSPRegressor(epsilon=1.0, delta=1e-5, n_rounds=10, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=5000):
    g = np.random.default_rng(0)
    X = g.normal(size=(n, 6))
    return X, 0.3 * X[:, 0] - 0.2 * X[:, 3] + 0.1 + 0.05 * g.normal(size=n)


def test_pipeline_seed_and_spend():
    X, y = _data()
    # pipeline mechanics only: a StandardScaler fitted on private data is itself not private (its means and
    # scales are not covered by spend_); a real pipeline scales with public bounds or spends budget on them
    pipe = make_pipeline(StandardScaler(), BoostedAdaSSPRegressor(epsilon=5.0, random_state=1)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    a = BoostedAdaSSPRegressor(epsilon=math.log(3), random_state=4).fit(X, y)
    b = BoostedAdaSSPRegressor(epsilon=math.log(3), random_state=4).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_
    c = BoostedAdaSSPRegressor(epsilon=math.log(3), random_state=5).fit(X, y)
    assert not np.array_equal(a.coef_, c.coef_)
    s = a.spend_
    assert s.epsilon == math.log(3) and s.delta == 1e-5 and s.relation == "add/remove"
    assert a.coef_.shape == (6,) and np.isfinite(a.intercept_)


def test_spend_events_compose_to_the_claim():
    "The 2 + T Gaussian events, composed by dp_accounting's PLD accountant, give back (epsilon, delta)."
    X, y = _data(500)
    reg = BoostedAdaSSPRegressor(epsilon=1.0, delta=1e-5, random_state=0).fit(X, y)
    b = reg.budget_
    assert abs(b.mu_gram**2 + b.mu_lmin**2 + b.n_rounds * b.mu_round**2 - b.mu**2) < 1e-12 * b.mu**2
    pld = compose([reg.spend_], target_delta=1e-5)
    assert abs(pld.epsilon - 1.0) < 2e-3, pld
    assert gdp_delta(b.mu, 1.0) <= 1e-5


def test_no_intercept_and_prediction_uses_the_clipped_design():
    X, y = _data(2000)
    reg = BoostedAdaSSPRegressor(epsilon=10.0, fit_intercept=False, random_state=0).fit(X, y)
    assert reg.intercept_ == 0.0
    Xt = X[:5] * 100                          # huge rows are clipped to norm 1 before predicting
    pred = reg.predict(Xt)
    Xc = Xt / np.linalg.norm(Xt, axis=1, keepdims=True)
    assert np.allclose(pred, Xc @ reg.coef_)
