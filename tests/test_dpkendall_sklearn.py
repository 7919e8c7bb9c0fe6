"""scikit-learn conformance of the private selectors (sklearn.utils.estimator_checks), plus Pipeline use and seeding.

No check is marked as an expected failure. The estimators declare `non_deterministic=True` (each fit is a fresh private
release), so scikit-learn itself skips the checks that compare two fits for equality; with a fixed `random_state` two
fits are identical (tested below)."""
import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dplit.dpkendall import DPKendallSelector, SubLassoSelector


@parametrize_with_checks([DPKendallSelector(k=1, epsilon=1.0, random_state=0),
                          SubLassoSelector(k=1, epsilon=1.0, m=2, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data():
    g = np.random.default_rng(0)
    X = g.normal(size=(400, 8))
    return X, 2 * X[:, 1] - X[:, 4] + 0.5 * g.normal(size=400)


def test_pipeline_and_seed():
    X, y = _data()
    for Sel in (DPKendallSelector, SubLassoSelector):
        pipe = make_pipeline(Sel(k=2, epsilon=10.0, random_state=3), LinearRegression()).fit(X, y)
        assert pipe.score(X, y) > 0.9
        a, b = Sel(k=3, epsilon=0.5, random_state=5).fit(X, y), Sel(k=3, epsilon=0.5, random_state=5).fit(X, y)
        assert np.array_equal(a.selected_, b.selected_)
        assert a.spend_.epsilon == 0.5 and a.spend_.relation == "add/remove"
        assert a.transform(X).shape == (400, 3) and a.get_support().sum() == 3
