"""Private tuning (nbs/16_tuning.ipynb): the search's spend is planned and charged, bad inputs are refused before any
draw, the per-run parameters give (eps, delta) under substitution, and the random_stopping audit's variants."""
import math
import zlib

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant, BudgetExceededError, charged_fit, planned_spend, to_relation
from dplit.audit import registered_audits, run_audit
from dplit.boosted_adassp import BoostedAdaSSPRegressor
from dplit.dpgp import DPSparseGPRegressor
from dplit.tuning import PrivateGridSearch, _run_params, best_of_law, random_stopping_select, stopping_count


def _data(n=400, d=3, seed=0):
    g = np.random.Generator(np.random.PCG64(seed))
    X = g.uniform(-1, 1, (n, d)) / math.sqrt(d)
    return X, np.clip(X.sum(1) + 0.1 * g.normal(size=n), -1, 1)


@pytest.mark.parametrize("est", [BoostedAdaSSPRegressor(), DPSparseGPRegressor()])
def test_run_params_give_the_run_budget_under_substitution(est):
    kw = _run_params(est, 0.8, 1e-6, 3)
    s = to_relation(planned_spend(est.set_params(**kw), 3), "substitute")
    assert s.epsilon <= 0.8 * (1 + 1e-12) and s.delta <= 1e-6 * (1 + 1e-12)
    assert s.epsilon > 0.8 * (1 - 1e-12)  # the whole run budget is used


def test_search_is_charged_and_overspend_refused_before_fit():
    X, y = _data()
    acc = BudgetAccountant(2.0, 1e-4, relation="substitute")
    gs = charged_fit(acc, PrivateGridSearch(BoostedAdaSSPRegressor(), {"n_rounds": [2, 4]}, epsilon=1.5, delta=5e-5,
                                            gamma=0.3, random_state=0), X, y)
    assert gs.spend_ == gs.expected_spend(3) and gs.best_params_["n_rounds"] in (2, 4)
    assert not hasattr(gs, "n_runs_")  # the number of runs is secret (tests/test_i24_review.py)
    again = PrivateGridSearch(BoostedAdaSSPRegressor(), {"n_rounds": [2]}, epsilon=1.5, delta=5e-5,
                              gamma=0.3, random_state=0)
    with pytest.raises(BudgetExceededError):
        charged_fit(acc, again, X, y)
    assert not hasattr(again, "best_estimator_")
    # an add/remove accountant cannot take a substitution search
    with pytest.raises(ValueError, match="add/remove"):
        charged_fit(BudgetAccountant(5.0, 1e-3), again, X, y)


@pytest.mark.parametrize("bad,match", [(dict(epsilon=0.0), "epsilon"), (dict(delta=0.0), "delta"),
                                       (dict(gamma=1.0), "gamma"), (dict(error_bound=-1.0), "error_bound"),
                                       (dict(validation_fraction=1.0), "validation_fraction"),
                                       (dict(param_grid={"n_rounds": [0]}), "n_rounds")])
def test_bad_inputs(bad, match):
    X, y = _data()
    kw = dict(estimator=BoostedAdaSSPRegressor(), param_grid={"n_rounds": [2]}, random_state=0) | bad
    with pytest.raises((ValueError, TypeError), match=match):
        PrivateGridSearch(**kw).fit(X, y)


def test_unsupported_estimator_refused():
    from sklearn.linear_model import LinearRegression
    with pytest.raises(TypeError, match="LinearRegression"):
        PrivateGridSearch(LinearRegression(), {"fit_intercept": [True]}, random_state=0).fit(*_data())


def test_stopping_count_laws():
    n = 200_000
    for kind, gamma, mean in (("geometric", 0.1, 10.0), ("logarithmic", 0.1, 0.9 / (0.1 * math.log(10)))):
        k = stopping_count(kind, gamma, rng=1, size=n)
        assert k.min() >= 1
        # 6 standard errors of the sample mean (variance estimated from the draws)
        assert abs(k.mean() - mean) < 6 * k.std() / math.sqrt(n), (kind, k.mean(), mean)
    with pytest.raises(ValueError, match="kind"):
        stopping_count("poisson", 0.1)


def test_select_returns_spend_and_best():
    p = np.array([0.5, 0.5])
    out = random_stopping_select(lambda g: (int(g.integers(2)),) * 2, 0.4, "geometric", 0.5, rng=0)
    assert len(out) == 3  # no number of runs
    best, score, spend = out
    assert spend.epsilon == pytest.approx(1.2) and best == score
    assert abs(best_of_law(p, "logarithmic", 0.5).sum() - 1) < 1e-12


@pytest.mark.parametrize("variant", ["correct", "half_noise", "geometric_charged_as_logarithmic"])
def test_random_stopping_audit(variant):
    case = registered_audits()["random_stopping"].build()
    assert (case.exact[variant] <= case.epsilon) == (variant == "correct")
    (rec,) = run_audit("random_stopping", variants=[variant], rng=zlib.crc32(f"tuning/{variant}".encode()))
    assert rec.ok, f"{variant}: {rec.result}"


def test_check_estimator():
    import warnings
    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(PrivateGridSearch(BoostedAdaSSPRegressor(n_rounds=3), {"n_rounds": [2, 3]}, random_state=0))
