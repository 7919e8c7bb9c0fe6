"""Issue 37, third rule (nbs/19_head_to_head.ipynb): the recipe's choices that depend on n.

X's ranges are spent only when a quantile's log-weight spread s reaches `x_spread`, X's grid is
finer from `x_fine_spread` on, and C may come from the bias/noise trade-off (`coef_prior`). The
checks: s against a brute-force spread of the exponential mechanism's log-weights with the epsilon
the scaler really spends; the branches at, just below and just above their thresholds; n refused
when it is not a count of at least 2 rows, before any draw; the fit's spend equal to the spend
declared without n (the accountant's plan), its parts where they are said to go; C against a
brute-force minimisation of the same criterion.
"""
import math
import warnings

import numpy as np
import pytest

import dplit.bounds as bounds
from dplit.accountant import BudgetAccountant, _same_spend, charged_fit
from dplit.bounds import quantile_utility
from dplit.logistic import logistic_calibration
from dplit.recipes import (X_FINE_GRID, RecipeClassifier, RecipeRegressor, _SchemaScaler,
                           logistic_choice, recipe_rule)
from dplit.recipes import _quantile_spread as x_spread

from _rules_registry import DrawRecorder

D, EPS, SHARE = 3, 1.0, 0.3


def _data(n, d=D, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, d))
    return X, (X[:, 0] + 0.3 * g.normal(size=n) > 0).astype(int), X @ np.linspace(1, -1, d)


@pytest.fixture
def ranges_eps(monkeypatch):
    "The epsilon of every private_range call on X's columns (bounds (-2, 2); y's are (-5, 5))."
    seen, real = [], bounds.private_range

    def spy(x, epsilon, b, *a, **k):
        if tuple(map(float, b)) == (-2.0, 2.0):
            seen.append(epsilon)
        return real(x, epsilon, b, *a, **k)

    monkeypatch.setattr(bounds, "private_range", spy)
    return seen


def _brute_spread(n, eps_q, q=0.05, seed=1):
    """The largest log-weight difference of the exponential mechanism (weights e^{eps u / 2},
    substitution) over a 101-point grid, on the hardest data (every value at one grid point: the
    utility spans [-max(q, 1-q) n, 0]) and on random data (never above)."""
    grid = np.linspace(-2, 2, 101)
    hard = quantile_utility(np.full(n, grid[40]), grid, q)
    rand = quantile_utility(np.random.default_rng(seed).uniform(-1, 1, n), grid, q)
    return [eps_q * (u.max() - u.min()) / 2 for u in (hard, rand)]


@pytest.mark.parametrize("n", [50, 427, 3001])
def test_spread_is_the_mechanisms_log_weight_range(n, ranges_eps):
    X, lab, _ = _data(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        RecipeClassifier(bounds=(-2.0, 2.0), epsilon=EPS, random_state=0).fit(X, lab)
    assert len(ranges_eps) == D  # one range per column, two quantiles at half of it each
    eps_q = ranges_eps[0] / 2
    hard, rand = _brute_spread(n, eps_q)
    s = x_spread(n, D, EPS, recipe_rule("classification", EPS, D)["x_share"])
    assert math.isclose(s, hard, rel_tol=1e-12) and rand <= s * (1 + 1e-12)


def _n_at(c_spread, d=D, eps=EPS, share=SHARE):
    "The smallest n whose spread reaches c (s is linear in n)."
    n = math.ceil(c_spread / x_spread(1, d, eps, share))
    assert x_spread(n, d, eps, share) >= c_spread > x_spread(n - 1, d, eps, share)
    return n


@pytest.mark.parametrize("c", [0.5, 1.0, 2.0, 4.0])
def test_classifier_spread_threshold_at_and_around_c(c, ranges_eps):
    n = _n_at(c)
    rule = dict(x_share=SHARE, x_spread=c)
    for m, spends in ((n - 1, False), (n, True), (n + 1, True)):
        X, lab, _ = _data(m)
        ranges_eps.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = RecipeClassifier(bounds=(-2.0, 2.0), epsilon=EPS, rule=rule, random_state=0)
            est.fit(X, lab)
        assert isinstance(est.x_scaler_, _SchemaScaler) is not spends, (c, m)
        eps_b = sum(ranges_eps)  # what the ranges really spent, and the model the rest
        assert math.isclose(eps_b, SHARE * EPS if spends else 0.0, abs_tol=1e-15)
        assert math.isclose(est.classifier_.epsilon + eps_b, EPS, rel_tol=1e-12)
        assert _same_spend(est.spend_, est.expected_spend(D))  # the plan, without n


def test_regressor_spread_threshold_only_under_substitution(ranges_eps):
    share, eps, c = 0.1, 3.0, 2.0
    n = _n_at(c, eps=eps, share=share)
    rule = dict(x_share=share, x_spread=c, x_min_epsilon=0.0, x_min_epsilon_no_n=1.0)
    for m, rel, spends in ((n - 1, "substitute", False), (n, "substitute", True),
                           (n - 1, "add/remove", True)):  # add/remove: n not public, no test
        X, _, y = _data(m)
        ranges_eps.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = RecipeRegressor(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0), epsilon=eps,
                                  relation=rel, rule=rule, random_state=0).fit(X, y)
        assert isinstance(est.x_scaler_, _SchemaScaler) is not spends, (m, rel)
        assert math.isclose(sum(ranges_eps), share * eps if spends else 0.0, abs_tol=1e-15)
        assert _same_spend(est.spend_, est.expected_spend(D))


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_fine_grid_from_its_threshold(task):
    share = recipe_rule(task, EPS, D)["x_share"]
    t = x_spread(400, D, EPS, share)  # exactly the spread at n = 400
    base = recipe_rule(task, EPS, D)["x_n_grid"]  # the task's own grid (None: no grid)
    for m, grid in ((399, base), (400, X_FINE_GRID), (401, X_FINE_GRID)):
        r = recipe_rule(task, EPS, D) | dict(x_fine_spread=t, x_min_epsilon=0.0, x_spread=0.0)
        from dplit.recipes import _check_rule
        assert _check_rule(r, task, EPS, D, m)["x_n_grid"] == grid, (m, grid)
    X, lab, y = _data(400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RecipeClassifier(bounds=(-2.0, 2.0), epsilon=EPS, random_state=0,
                               rule=dict(x_fine_spread=t)).fit(X, lab)
    assert est.x_scaler_.n_grid == X_FINE_GRID


BAD_N = [(0, ValueError), (1, ValueError), (-3, ValueError), (2.5, TypeError),
         (True, TypeError), ("10", TypeError), (math.nan, TypeError)]


@pytest.mark.parametrize("n, err", BAD_N)
def test_bad_n_refused(n, err, monkeypatch):
    rec = DrawRecorder(monkeypatch)
    for task in ("regression", "classification"):
        with pytest.raises(err, match="n_samples"):
            recipe_rule(task, EPS, D, n)
    with pytest.raises(err, match="n_samples"):
        RecipeClassifier(bounds=(-2.0, 2.0)).expected_spend(D, n)
    with pytest.raises(err, match="n_samples"):
        RecipeRegressor(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0),
                        relation="substitute").expected_spend(D, n)
    assert rec.untouched()


def test_one_row_refused_before_any_draw_or_charge(monkeypatch):
    X, lab, _ = _data(1)
    rec = DrawRecorder(monkeypatch)
    acc = BudgetAccountant(10.0, 1e-3, relation="substitute", tight=False)
    with pytest.raises(ValueError):
        RecipeClassifier(bounds=(-2.0, 2.0), rule=dict(x_spread=1.0), accountant=acc).fit(X, lab)
    assert rec.untouched() and acc.spent.epsilon == 0


def _flip():
    "A (d, epsilon) where the pure/Gaussian choice differs with and without X's share."
    for eps in (1.0, 3.0, 10.0):
        for d in range(10, 40):
            a = logistic_choice((1 - SHARE) * eps, 1e-5, d)["delta"]
            if a != logistic_choice(eps, 1e-5, d)["delta"]:
                return d, eps, a
    raise AssertionError("no d flips the noise")


def test_delta_never_depends_on_n():
    d, eps, dlt = _flip()
    n_low = _n_at(4.0, d=d, eps=eps) - 1  # below the spread: X's share goes to the model
    acc = BudgetAccountant(100.0, 1e-3, relation="substitute", tight=False)
    for n in (n_low, 4 * n_low):
        X, lab, _ = _data(n, d)
        est = RecipeClassifier(bounds=(-2.0, 2.0), epsilon=eps, random_state=0,
                               rule=dict(x_spread=4.0, x_share=SHARE))  # SHARE: _flip's
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            charged_fit(acc, est, X, lab)  # raises if spend_ differs from the plan without n
        assert est.spend_.delta == dlt and est.classifier_.delta == dlt
        assert isinstance(est.x_scaler_, _SchemaScaler) is (n == n_low)


@pytest.mark.parametrize("eps, d, w0, dlt", [(0.35, 5, 1.0, 0.0), (2.1, 10, 2.0, 0.0),
                                             (2.1, 30, 4.0, 1e-5), (0.7, 30, 1.0, 1e-5)])
def test_coef_prior_c_minimises_the_criterion(eps, d, w0, dlt):
    k = d + 1
    noise = "pure" if dlt == 0 else "gauss"
    C = logistic_choice(eps, max(dlt, 1e-5), d, noise=noise, coef_prior=w0)["C"]

    def crit(c):
        cal = logistic_calibration(eps, dlt, C=c)
        nb = k * (k + 1) / cal["rate"] ** 2 if dlt == 0 else k * cal["sigma"] ** 2
        return w0 ** 2 * k / c ** 2 + nb

    cs = np.exp(np.linspace(math.log(1e-4), math.log(4 * math.expm1(eps / 2)), 4001))
    vals = np.array([crit(c) for c in cs])
    assert crit(C) <= vals.min() * (1 + 1e-6)  # no grid point does better
    assert abs(math.log(C / cs[vals.argmin()])) <= 2 * (cs[1] / cs[0] - 1)  # within a step
    assert math.log1p(C / 4) <= eps / 2 * (1 + 1e-9)  # the Jacobian at most half


def test_add_remove_uses_the_epsilon_threshold_not_n():
    "Under add/remove n is not public: X's ranges from X_MIN_EPSILON_NO_N, whatever the rows."
    from dplit.recipes import X_MIN_EPSILON_NO_N, X_SHARE, _check_rule
    for eps in (0.5 * X_MIN_EPSILON_NO_N, X_MIN_EPSILON_NO_N):
        spends = eps >= X_MIN_EPSILON_NO_N
        assert _check_rule(None, "regression", eps, D, None)["x_share"] == X_SHARE * spends
        X, _, y = _data(5000)  # a spread far above the threshold: ignored under add/remove
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = RecipeRegressor(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0), epsilon=eps,
                                  random_state=0).fit(X, y)
        assert isinstance(est.x_scaler_, _SchemaScaler) is not spends
