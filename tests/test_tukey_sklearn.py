"""TukeyRegressor as a scikit-learn estimator (nbs/13_tukey.ipynb)."""
import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dplit.tukey import TukeyRegressor

G = np.random.default_rng(0)
X = G.normal(size=(30_000, 4))
Y = X @ [1.0, -2.0, 0.5, 3.0] + 4.0 + G.normal(size=30_000)


def test_params_clone_and_signature():
    reg = TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=3)
    c = clone(reg)
    assert c.get_params() == reg.get_params()
    assert set(reg.get_params()) >= {"epsilon", "delta", "random_state", "fit_intercept"}


def test_fit_predict_score_and_reproducible():
    a = TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=5).fit(X, Y)
    b = TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=5).fit(X, Y)
    assert a.ptr_passed_ and a.status_ == "ok"
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.score(X, Y) > 0.9
    assert abs(a.intercept_ - 4.0) < 0.5
    assert math.isclose(a.spend_.epsilon, math.log(3)) and math.isclose(a.spend_.delta, 1e-5)
    assert a.spend_.relation == "add/remove"


def test_in_a_pipeline_and_without_intercept():
    pipe = make_pipeline(StandardScaler(), TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=1))
    pipe.fit(X, Y)      # the scaler is not private; this only checks the estimator plumbing
    assert pipe.predict(X[:5]).shape == (5,)
    reg = TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=2, fit_intercept=False).fit(X, Y - 4.0)
    assert reg.intercept_ == 0.0 and reg.coef_.shape == (4,)
    assert reg.n_models_ == int(reg.n_tilde_ // 4)


def test_paper_accounting_needs_fewer_models_to_pass():
    "At n = 3000, d = 5: paper accounting passes more often than the data-level accounting (which needs ~2x m)."
    Xs, ys = X[:3000], Y[:3000]
    paper = np.mean([TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=s, paper_accounting=True)
                     .fit(Xs, ys).ptr_passed_ for s in range(20)])
    ours = np.mean([TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=s).fit(Xs, ys).ptr_passed_
                    for s in range(20)])
    assert paper >= ours


def test_caller_supplied_n_tilde_and_models():
    "Pipelines release n_tilde once and choose m = floor(n_tilde / k): no n budget is spent here."
    reg = TukeyRegressor(epsilon=1.0, delta=1e-5, random_state=0, n_tilde=29_000.0, n_models=5_000).fit(X, Y)
    assert reg.n_models_ == 5_000 and reg.n_tilde_ == 29_000.0
    assert math.isclose(reg.spend_.epsilon, 1.0) and reg.ptr_passed_
    few = TukeyRegressor(epsilon=1.0, delta=1e-5, random_state=0, n_tilde=10.0, n_models=50).fit(X, Y)
    assert few.status_ == "too_few_models" and not few.ptr_passed_


def test_paper_accounting_spend_reports_the_provable_bound():
    "paper_accounting runs the paper's numbers but spend_ reports what group privacy proves for one row."
    from dplit.tukey import tukey_budget, tukey_spends
    b = tukey_budget(math.log(3), 1e-5, paper_accounting=True)
    s = tukey_spends(b)
    assert s.epsilon == pytest.approx(b.eps_n + 2 * b.eps_in, rel=1e-12)
    assert s.delta == pytest.approx(b.eta * math.exp(b.eps_n) + (1 + math.exp(b.eps_in)) * b.delta_in, rel=1e-12)
    assert s.epsilon > math.log(3) and s.delta > 1e-5
    ours = tukey_spends(tukey_budget(math.log(3), 1e-5))
    assert ours.epsilon == pytest.approx(math.log(3), rel=1e-12) and ours.delta <= 1e-5 * (1 + 1e-12)
