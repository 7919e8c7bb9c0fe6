"""The budget accountant (nbs/08_accountant.ipynb): an overspend is refused before anything is drawn, every fit of a
search is charged, the plans equal the fits' spends, and the accountant cannot be copied away."""
import copy
import math
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score

from dplit.accountant import (BudgetAccountant, BudgetExceededError, Charged, charged_fit, planned_spend,
                              to_relation, _same_spend)
from dplit.boosted_adassp import BoostedAdaSSPRegressor
from dplit.core import PrivacySpend
from dplit.dpkendall import SubLassoSelector


class RecordingGenerator(np.random.Generator):
    "A numpy Generator recording every public attribute used on it."

    def __init__(self, seed=0):
        super().__init__(np.random.PCG64(seed))
        object.__setattr__(self, "calls", [])

    def __getattribute__(self, name):
        if not name.startswith("_") and name != "calls":
            object.__getattribute__(self, "calls").append(name)
        return object.__getattribute__(self, name)


@pytest.fixture
def recorded(monkeypatch):
    "Every generator numpy's default_rng makes (as dplit's as_rng(int/None) does) records its calls."
    made = []
    real = np.random.default_rng

    def fake(seed=None):
        g = RecordingGenerator(0 if seed is None else seed)
        made.append(g)
        return g

    monkeypatch.setattr(np.random, "default_rng", fake)
    yield made
    monkeypatch.setattr(np.random, "default_rng", real)


def _data(n=300, d=5, seed=0):
    g = np.random.Generator(np.random.PCG64(seed))
    X = g.uniform(-1, 1, (n, d))
    return X, np.clip(X[:, 0] - 0.5 * X[:, 1] + 0.1 * g.normal(size=n), -1, 1)


def test_overspend_raises_before_any_draw(recorded):
    X, y = _data()
    acc = BudgetAccountant(1.0, 1e-5)
    acc.charge(PrivacySpend(0.9, 0.0, "earlier release"))
    for est in (BoostedAdaSSPRegressor(epsilon=0.5, delta=1e-6, n_rounds=5, random_state=3),
                SubLassoSelector(k=2, epsilon=0.5, random_state=4)):
        with pytest.raises(BudgetExceededError, match="refused"):
            charged_fit(acc, est, X, y)
        assert not hasattr(est, "spend_")
    assert all(not g.calls for g in recorded), [g.calls for g in recorded]
    assert len(acc.ledger) == 1
    # control: an accepted fit does draw from the recorded generators
    charged_fit(BudgetAccountant(1.0, 1e-5), SubLassoSelector(k=2, epsilon=0.5, random_state=4), X, y)
    assert any(g.calls for g in recorded)


def test_charged_search_counts_every_fit():
    X, y = _data()
    acc = BudgetAccountant(10.0, 1e-3)
    bas = BoostedAdaSSPRegressor(epsilon=0.2, delta=1e-6, n_rounds=5, random_state=1)
    cross_val_score(Charged(bas, acc), X, y, cv=4)
    assert len(acc.ledger) == 4
    gs = GridSearchCV(Charged(bas, acc), {"estimator__epsilon": [0.1, 0.3]}, cv=3).fit(X, y)
    assert len(acc.ledger) == 4 + 2 * 3 + 1
    eps = [c.charged.epsilon for c in acc.ledger]
    assert acc.spent_basic.epsilon == math.fsum(eps)
    refit = gs.best_params_["estimator__epsilon"]
    assert abs(math.fsum(eps) - (4 * 0.2 + 3 * 0.1 + 3 * 0.3 + refit)) < 1e-12
    assert acc.spent.epsilon <= acc.spent_basic.epsilon and acc.spent.delta == acc.spent_basic.delta


def test_accountant_is_shared_not_copied():
    acc = BudgetAccountant(1.0)
    assert copy.copy(acc) is acc and copy.deepcopy(acc) is acc
    c = clone(Charged(SubLassoSelector(), acc))
    assert c.accountant is acc
    copy_ = pickle.loads(pickle.dumps(acc))  # a restored copy keeps the ledger, takes no charge
    with pytest.raises(ValueError, match="pickle"):
        copy_.charge(PrivacySpend(0.1))


def test_relations():
    acc = BudgetAccountant(1.0, relation="add/remove")
    with pytest.raises(ValueError, match="add/remove"):
        acc.charge(PrivacySpend(0.1, relation="substitute"))
    assert not acc.ledger
    sub = BudgetAccountant(2.0, 1e-4, relation="substitute")
    charged = sub.charge(PrivacySpend(0.5, 1e-5, "x"))
    assert (charged.epsilon, charged.delta) == (1.0, (1 + math.exp(0.5)) * 1e-5)
    assert to_relation(PrivacySpend(0.5), "add/remove") == PrivacySpend(0.5)


def test_exact_budget_split_is_accepted_and_next_refused():
    acc = BudgetAccountant(1.0, tight=False)
    for _ in range(3):
        acc.charge(PrivacySpend(1.0 / 3))
    assert acc.remaining[0] <= 1e-15
    with pytest.raises(BudgetExceededError):
        acc.charge(PrivacySpend(1e-9))


@pytest.mark.parametrize("bad,match", [(dict(epsilon=0), "epsilon"), (dict(epsilon=float("nan")), "epsilon"),
                                       (dict(delta=1.0), "delta"), (dict(relation="swap"), "relation"),
                                       (dict(tight=1), "tight")])
def test_bad_accountant(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        BudgetAccountant(**(dict(epsilon=1.0) | bad))


def test_bad_charges():
    acc = BudgetAccountant(1.0)
    with pytest.raises(TypeError, match="spend"):
        acc.charge(0.5)
    with pytest.raises(TypeError, match="label"):
        acc.charge(PrivacySpend(0.1), label=3)
    with pytest.raises(TypeError, match="accountant"):
        charged_fit("acc", SubLassoSelector(), *_data())
    from sklearn.linear_model import LinearRegression
    with pytest.raises(TypeError, match="LinearRegression"):
        charged_fit(acc, LinearRegression(), *_data())
    assert not acc.ledger


@pytest.mark.slow
def test_plans_of_numba_estimators():
    "DPKendall and DP-SIS compile numba kernels on first use (about a minute): their plans equal their spends."
    from dplit.dpkendall import DPKendallSelector
    from dplit.dpsis import DPSISSelector
    X, y = _data()
    for est in (DPKendallSelector(k=2, epsilon=0.7, random_state=0), DPSISSelector(k=2, epsilon=0.9, random_state=0),
                DPSISSelector(k=2, epsilon=0.9, random_state=0, relation="substitute")):
        plan = planned_spend(est, X.shape[1])
        est.fit(X, y)
        assert _same_spend(plan, est.spend_), (plan, est.spend_)
