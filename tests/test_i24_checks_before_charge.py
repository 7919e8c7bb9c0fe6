"""A typo costs no budget (issue 24): with `accountant=`, a bad parameter is refused before the fit is charged.

Each estimator charges its accountant (`dplit.accountant._charge_before_draw`) once its inputs are valid and
before its first random draw. A parameter checked only after the charge would refuse the fit yet leave a
charge in the ledger: budget spent on nothing. For every estimator and every bad parameter below, the fit
must raise ValueError/TypeError naming the parameter AND leave the ledger empty. The control (the same fit
with good parameters) charges exactly once, so an empty ledger is not the accountant being ignored.
"""
import numpy as np
import pytest

import dplit
from dplit.accountant import BudgetAccountant

_g = np.random.default_rng(0)
X = _g.uniform(-1, 1, size=(60, 4))
Y = np.clip(0.5 * X[:, 0] - 0.3 * X[:, 2] + 0.1 * _g.normal(size=60), -1, 1)
X1 = X[:, :1]                                   # the GP runs on one input column

# (estimator, good parameters, data, the accountant's relation: DP-GP is private under substitution)
GOOD = {
    "DPKendallSelector": (dplit.DPKendallSelector, dict(k=2), X, "add/remove"),
    "SubLassoSelector": (dplit.SubLassoSelector, dict(k=2, m=4), X, "add/remove"),
    "DPSISSelector": (dplit.DPSISSelector, dict(k=2), X, "add/remove"),
    "DPSparseGPRegressor": (dplit.DPSparseGPRegressor, dict(inducing_points=5), X1, "substitute"),
}

# (estimator, bad parameter, its bad value, the name the message must contain)
BAD = [
    ("DPKendallSelector", "k", 0, "k"),
    ("DPKendallSelector", "k", 4, "k"),                      # k < d = 4 is required
    ("DPKendallSelector", "k", 1.5, "k"),
    ("SubLassoSelector", "k", 0, "k"),
    ("SubLassoSelector", "k", 5, "k"),
    ("SubLassoSelector", "m", 0, "m"),
    ("SubLassoSelector", "m", 2.5, "m"),
    ("SubLassoSelector", "alpha", -1.0, "alpha"),
    ("SubLassoSelector", "alpha", "0.1", "alpha"),
    ("DPSISSelector", "k", 0, "k"),
    ("DPSISSelector", "k", 4, "k"),
    ("DPSISSelector", "gamma", 1.5, "gamma"),
    ("DPSISSelector", "gamma", -0.1, "gamma"),
    ("DPSISSelector", "x_bounds", (1.0, -1.0), "x_bounds"),
    ("DPSISSelector", "x_bounds", None, "x_bounds"),
    ("DPSISSelector", "x_bounds", ([-1.0] * 3, [1.0] * 3), "x_bounds"),   # 3 pairs for 4 columns
    ("DPSISSelector", "y_bounds", (1.0, -1.0), "y_bounds"),
    ("DPSISSelector", "y_bounds", "ab", "y_bounds"),
    ("DPSISSelector", "allow_non_private", "yes", "allow_non_private"),
    ("DPSISSelector", "relation", "swap", "relation"),
    ("DPSISSelector", "variant", "fast", "variant"),
    ("DPSparseGPRegressor", "inducing_points", None, "inducing_points"),
    ("DPSparseGPRegressor", "inducing_points", 2.5, "inducing_points"),
    ("DPSparseGPRegressor", "inducing_points", np.array([[0.0], [np.nan]]), "inducing_points"),
    ("DPSparseGPRegressor", "inducing_points", np.zeros((3, 2)), "inducing_points"),  # X has 1 column
    ("DPSparseGPRegressor", "inducing_points", np.array([["a"], ["b"]]), "inducing_points"),
    ("DPSparseGPRegressor", "input_bounds", (1.0, -1.0), "input_bounds"),
    ("DPSparseGPRegressor", "input_bounds", (0.0, np.inf), "input_bounds"),
    ("DPSparseGPRegressor", "input_bounds", 3.0, "input_bounds"),
]


def _accountant(relation):
    return BudgetAccountant(epsilon=1e3, delta=0.5, relation=relation)


@pytest.mark.parametrize("name", list(GOOD))
def test_a_good_fit_is_charged_once(name):
    cls, params, data, relation = GOOD[name]
    acc = _accountant(relation)
    cls(**params, random_state=0, accountant=acc).fit(data, Y)
    assert len(acc.ledger) == 1


@pytest.mark.parametrize("name,param,value,named", BAD,
                         ids=[f"{n}-{p}-{i}" for i, (n, p, _, _) in enumerate(BAD)])
def test_a_bad_parameter_is_refused_before_the_charge(name, param, value, named):
    cls, params, data, relation = GOOD[name]
    acc = _accountant(relation)
    est = cls(**{**params, param: value}, random_state=0, accountant=acc)
    with pytest.raises((ValueError, TypeError), match=named):
        est.fit(data, Y)
    assert acc.ledger == [], f"{name}: a bad {param} was charged {acc.ledger}"


def test_the_paper_variant_still_ignores_the_public_bounds():
    "The early checks check only what the fit uses: the (non-private) paper variant never reads x_bounds."
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = dplit.DPSISSelector(k=2, variant="paper", allow_non_private=True, x_bounds=None,
                                  y_bounds="ab", random_state=0).fit(X, Y)
    assert len(sel.get_support(indices=True)) == 2
