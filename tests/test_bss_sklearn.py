"""scikit-learn conformance of BestSubsetSelector (nbs/50_bss.ipynb), plus Pipeline use, seeding and
spends.

Each fit is a fresh private release (`non_deterministic=True`), so scikit-learn skips the fit-
equality checks; with a fixed random_state two fits are identical (tested below). sklearn's random
test data exceed the default public bounds, so fit clips them and warns (UserWarning) — that warning
is part of the contract, not a failure."""
import math
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dplit.bss import METHODS, BestSubsetSelector, paper_design


@parametrize_with_checks([BestSubsetSelector(s=1, epsilon=1.0, random_state=0),
                          BestSubsetSelector(s=1, epsilon=1.0, method="mistakes_ptr",
                                             random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


@pytest.mark.parametrize("method", METHODS)
def test_pipeline_seed_and_spend(method):
    X, y, S = paper_design(3000, 8, 2, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pipe = make_pipeline(BestSubsetSelector(s=2, epsilon=2.0, method=method, random_state=3),
                             LinearRegression()).fit(X, y)
        assert tuple(pipe[0].get_support(indices=True)) == S
        a = BestSubsetSelector(s=2, epsilon=0.3, method=method, random_state=5,
                               gap_check="warn").fit(X[:200], y[:200])
        b = BestSubsetSelector(s=2, epsilon=0.3, method=method, random_state=5,
                               gap_check="warn").fit(X[:200], y[:200])
    assert np.array_equal(a.selected_, b.selected_)
    assert a.spend_.relation == "substitute" and math.isclose(a.spend_.epsilon, 0.3)
    assert a.spend_.delta == (1e-6 if method == "mistakes_ptr" else 0.0)
    assert a.transform(X[:200]).shape == (200, 2) and a.get_support().sum() == 2


def test_hinge_selector():
    g = np.random.default_rng(2)
    X = g.uniform(-0.5, 0.5, size=(400, 6))
    y = np.where(X[:, 1] - X[:, 4] + 0.05 * g.normal(size=400) > 0, 1, -1)
    sel = BestSubsetSelector(s=2, epsilon=50.0, loss="hinge", r=3.0, random_state=0).fit(X, y)
    assert tuple(sel.get_support(indices=True)) == (1, 4)


def test_finite_T_spends_theorem1_epsilon():
    X, y, S = paper_design(500, 8, 2, rng=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sel = BestSubsetSelector(s=2, epsilon=1.0, T=3, random_state=0).fit(X, y)
    assert sel.spend_.epsilon > 1.0
