"""Review of issue 37's fourth rule (nbs/19_head_to_head.ipynb): the checks it lacked.

1. The spread s against the mechanism's own draws, not against the formula it is derived from:
   on the hardest data (every value of a column at one grid point) the recipe's first private
   quantile is replayed many times, and the log of the frequency at the data's point over the mean
   frequency above it (the largest log-probability ratio between two outcomes) must be s.
2. With quantiles that are not symmetric, s is the larger of the two quantiles' spreads (the
   largest log-weight difference of the release), not the low quantile's.
3. Every value of `rule` is refused before the charge and before any draw (`quantiles` and
   `n_rounds` were checked only by the steps, after the charge and, for `n_rounds`, after the
   ranges were drawn).
"""
import math
import warnings

import numpy as np
import pytest

import dplit.bounds as bounds
from dplit.accountant import BudgetAccountant
from dplit.bounds import quantile_utility
from dplit.recipes import RecipeClassifier, RecipeRegressor, _SchemaScaler, recipe_rule
from dplit.recipes import _quantile_spread as x_spread

from _rules_registry import DrawRecorder

D, EPS, DRAWS = 3, 1.0, 200_000
GRID = np.linspace(-2.0, 2.0, 101)  # the grid of X's quantiles on bounds (-2, 2), 101 points
AT = 40                              # the grid point every value sits on


def _fit(task, X, rule=None, accountant=None, relation="substitute"):
    lab = np.arange(len(X)) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "classification":
            return RecipeClassifier(bounds=(-2.0, 2.0), epsilon=EPS, rule=rule, random_state=0,
                                    accountant=accountant).fit(X, lab)
        return RecipeRegressor(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0), epsilon=EPS,
                               relation=relation, rule=rule, random_state=0,
                               accountant=accountant).fit(X, lab - 0.5)


@pytest.mark.parametrize("task, s_target", [("classification", 3.0), ("regression", 5.0)])
def test_spread_is_the_log_probability_ratio_of_the_draws(task, s_target, monkeypatch):
    share = recipe_rule(task, EPS, D)["x_share"]
    n = round(s_target / x_spread(1, D, EPS, share))  # s near s_target (X_SPREAD = 4: spends)
    s = x_spread(n, D, EPS, share)
    calls, real = [], bounds.exponential_mechanism

    def spy(u, sens, eps, *a, **k):
        calls.append((np.array(u, dtype=float), sens, eps))
        return real(u, sens, eps, *a, **k)

    monkeypatch.setattr(bounds, "exponential_mechanism", spy)
    # the rule's default X ranges have no grid (classification, chapter 19's fifth pass) or 1001
    # points (regression, the sixth): s does not depend on the grid, and is checked on 101 points
    est = _fit(task, np.full((n, D), GRID[AT]), rule=dict(x_n_grid=len(GRID)))
    assert not isinstance(est.x_scaler_, _SchemaScaler)
    u, sens, eps = calls[0]  # X's first column, its low quantile (q = 0.05)
    assert u.argmax() == AT and len(np.unique(u[AT + 1:])) == 1  # the hardest data: 3 levels
    idx = real(u, sens, eps, rng=1, size=DRAWS).value  # the mechanism itself, replayed
    top, above = np.sum(idx == AT), np.sum(idx > AT)
    log_ratio = math.log(top) - math.log(above / (len(GRID) - AT - 1))
    # Var(log c1 - log c2) ~ 1/c1 + 1/c2 for two multinomial counts (delta method); five
    # standard errors: a false alarm has probability below 1e-6. A sensitivity of 0.95 (the
    # add/remove one) moves the ratio by s/19 >= 0.16, ten standard errors or more.
    se = math.sqrt(1 / top + 1 / above)
    assert abs(log_ratio - s) <= 5 * se, (log_ratio, s, se)


def _brute(n, q, eps_q):
    "The largest log-weight difference over the grid, on the hardest data for q (a point mid-grid)."
    u = quantile_utility(np.full(n, GRID[AT if q < 0.5 else 100 - AT]), GRID, q)
    return eps_q * (u.max() - u.min()) / 2


def test_spread_is_the_wider_quantiles_with_asymmetric_quantiles():
    qs, c = (0.3, 0.99), 2.0
    share = recipe_rule("classification", EPS, D)["x_share"]
    eps_q = share * EPS / (2 * D)  # the split test_i37r_rule checks against the scaler's calls
    n = next(m for m in range(2, 10_000) if max(_brute(m, q, eps_q) for q in qs) >= c)
    assert _brute(n, qs[0], eps_q) < c  # the low quantile alone would not spend
    for m, spends in ((n - 1, False), (n, True)):
        est = _fit("classification", np.linspace(-1, 1, m)[:, None] * np.ones(D),
                   rule=dict(quantiles=qs, x_spread=c))
        assert isinstance(est.x_scaler_, _SchemaScaler) is not spends, m


BAD = [("quantiles", (0.9, 0.1)), ("quantiles", (-0.5, 0.5)), ("quantiles", "ab"),
       ("quantiles", (0.05,)), ("n_rounds", 0), ("n_rounds", 2.5), ("n_rounds", "a")]


@pytest.mark.parametrize("task, relation, key, value", [  # n_rounds: regression only
    (t, r, k, v) for t, r in (("regression", "substitute"), ("regression", "add/remove"),
                              ("classification", "substitute"))
    for k, v in BAD if t == "regression" or k != "n_rounds"])
def test_rule_values_refused_before_the_charge_and_any_draw(task, relation, key, value,
                                                           monkeypatch):
    X = np.random.default_rng(0).uniform(-1, 1, (3000, D))
    rec = DrawRecorder(monkeypatch)
    acc = BudgetAccountant(100.0, 1e-3, relation="substitute", tight=False)
    with pytest.raises((ValueError, TypeError), match=key):
        _fit(task, X, rule={key: value}, accountant=acc, relation=relation)
    assert acc.spent.epsilon == 0 and rec.untouched()
