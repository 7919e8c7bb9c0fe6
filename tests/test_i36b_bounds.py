"""Issue 36, finding 7: bounds that fit real columns.

* the quantile utility is minus the distance from qn to the interval of ranks [#{x < b}, #{x <= b}]
  (checked against a brute-force count), and its sensitivity max(q, 1 - q) holds with ties
  (exhaustive over small datasets on and between the grid points);
* a zero-heavy column keeps its zeros: the released lower bound is 0 except with probability below
  the derived bound (m - 1) exp(-eps' (z - qn) / (2 Delta)), by the exact law and by Monte Carlo;
* binary / categorical / user-declared columns get their public range and spend nothing.
"""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dplit.bounds import (PrivateClipScaler, coarse_grid, private_range, quantile_sensitivity,
                          quantile_utility)
from dplit.bounds import _quantile_law


def _brute_utility(x, grid, q):
    n = len(x)
    out = []
    for b in grid:
        lo = sum(1 for v in x if v < b)
        hi = sum(1 for v in x if v <= b)
        t = q * n
        out.append(-(lo - t if t < lo else (t - hi if t > hi else 0.0)))
    return np.array(out)


def test_utility_is_the_distance_to_the_interval_of_ranks():
    g = np.random.default_rng(0)
    grid = np.arange(6.0)
    for _ in range(200):
        x = g.choice(np.arange(-0.5, 6.0, 0.5), size=int(g.integers(1, 12)))   # ties on the grid
        q = float(g.choice([0.0, 0.05, 0.3, 0.5, 0.9, 1.0]))
        assert np.allclose(quantile_utility(x, grid, q), _brute_utility(x, grid, q), atol=1e-12)


@pytest.mark.parametrize("q", [0.05, 0.3, 0.5, 0.8])
def test_sensitivity_holds_with_ties(q):
    "Every dataset of at most 4 values on 11 positions (grid points included), one record added."
    grid, vals = np.arange(5.0), np.arange(-0.5, 5.0, 0.5)
    s, worst = quantile_sensitivity(q), 0.0
    for n in range(0, 4):
        for D in itertools.combinations_with_replacement(vals, n):
            u0 = quantile_utility(np.array(D), grid, q) if D else -np.zeros(5) - 0.0
            for x in vals:
                u1 = quantile_utility(np.array(D + (x,)), grid, q)
                worst = max(worst, float(np.max(np.abs(u1 - u0))))
    assert worst <= s + 1e-12 and worst >= s - 1e-12    # the bound holds and is attained


def _zero_heavy(n=500, seed=36):
    g = np.random.default_rng(seed)
    zeros = g.random(n) < 0.54
    return np.where(zeros, 0.0, 1.0 + g.poisson(3.0, n)), int(zeros.sum())


def test_zero_heavy_column_keeps_its_zeros():
    x, z = _zero_heavy()
    n, q, eps, m = len(x), 0.05, 0.25, 1001        # eps: one column of a d = 2 scaler at eps = 1
    grid, s = coarse_grid((0.0, 100.0), m), quantile_sensitivity(q)
    eps_q = eps / 2
    bound = (m - 1) * math.exp(-eps_q * (z - q * n) / (2 * s))
    exact = 1 - math.exp(_quantile_law(x, grid, q, eps_q, s)[0])
    assert exact <= bound < 1e-3
    R = 20_000
    lows = private_range(x, eps, (0.0, 100.0), (q, 0.95), m, rng=1, size=R).value[:, 0]
    k = int(stats.binom.isf(1e-4, R, bound))      # false alarm <= 1e-4 under the bound
    assert int((lows != 0.0).sum()) <= k
    # the one-sided rule -|#{x <= b} - qn| ties every grid point in [0, 1): it kept 0 rarely
    old = -np.abs(np.searchsorted(np.sort(x), grid, side="right") - q * n)
    from dplit.mechanisms import exponential_log_probs
    assert math.exp(exponential_log_probs(old, s, eps_q)[0]) < 0.2


def _table(n=400, seed=0):
    g = np.random.default_rng(seed)
    return pd.DataFrame({"x": g.normal(size=n), "flag": g.random(n) < 0.02,
                         "grade": pd.Categorical(g.integers(0, 3, n), categories=[0, 1, 2, 3]),
                         "yes": (g.random(n) < 0.97).astype(float)})


def test_undeclared_categories_are_private():
    "astype('category') builds categories from the values: taken as a range they would publish the"
    "column's min and max at no cost, so a categorical column is private unless the schema says so."
    X = _table()
    X["grade"] = pd.Series(np.r_[7, np.arange(len(X) - 1) % 3]).astype("category")  # from values
    sc = PrivateClipScaler(epsilon=0.4, bounds=[(-10.0, 10.0), (0.0, 1.0), (0.0, 50.0),
                                                (0.0, 1.0)], random_state=3).fit(X)
    assert sc.kinds_[2] == "private"
    with pytest.raises(ValueError, match="schema"):
        PrivateClipScaler(schema={"x": "categories"}).fit(X)       # not a categorical column


def test_public_columns_get_their_range_and_spend_nothing():
    X = _table()
    bounds = [(-10.0, 10.0), (0.0, 1.0), (0.0, 5.0), (0.0, 1.0)]
    sc = PrivateClipScaler(epsilon=0.4, bounds=bounds,
                           schema={"yes": "binary", "grade": "categories"}, random_state=3).fit(X)
    assert sc.ranges_[1].tolist() == [0.0, 1.0]           # bool dtype
    assert sc.ranges_[2].tolist() == [0.0, 3.0]           # the declared categories
    assert sc.ranges_[3].tolist() == [0.0, 1.0]           # the schema
    assert sc.spend_.epsilon == 0.4
    # the whole budget went to the one private column: its range is private_range at eps = 0.4
    # with the same seed (same generator calls: equal grid points by construction)
    ref = private_range(X["x"].to_numpy(), 0.4, bounds[0], rng=np.random.default_rng(3)).value
    assert sc.ranges_[0].tolist() == ref.tolist()
    none = PrivateClipScaler(bounds=bounds, schema={"x": (-5.0, 5.0), "yes": "binary",
                                                    "grade": "categories"}).fit(X)
    # nothing is drawn, but the fit records the planned epsilon (an upper bound: the plan, made before
    # the data's columns are seen, cannot know that every column is public)
    assert none.spend_ == none.expected_spend(4) and none.ranges_[0].tolist() == [-5.0, 5.0]


@pytest.mark.parametrize("schema, word", [({"nope": "binary"}, "schema"), ({0: "weird"}, "schema"),
                                          ({0: (1.0, 0.0)}, "schema"), ([("x", 1)], "schema"),
                                          ({0: (0.0, np.inf)}, "schema")])
def test_bad_schemas_are_refused_by_name(schema, word):
    with pytest.raises((ValueError, TypeError), match=word):
        PrivateClipScaler(schema=schema).fit(np.zeros((5, 2)))
