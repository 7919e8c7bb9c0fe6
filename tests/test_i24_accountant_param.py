"""Issue 24: the `accountant=` parameter of every private dplit estimator and transformer.

For every estimator of the rule registry (tests/_rules_registry.py): a fit given an accountant
charges exactly its planned spend, which is the `spend_` the fit records; an accountant with too
little budget refuses the fit before any random draw (numpy's `default_rng` is patched so that
every generator dplit makes records its use); searches charge every fit; the accountant survives
`clone` as the same object; a spend whose relation cannot be converted is refused; a pickled
fitted estimator carries the accountant's ledger only, and the restored copy refuses charges.
"""
import inspect
import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score

import _rules_registry as R
from dplit.accountant import (BudgetAccountant, BudgetExceededError, Charged, _same_spend,
                              charged_fit, planned_spend, to_relation)
from dplit.core import PrivacySpend

ESTIMATORS = R.public_estimators()
# no `accountant=`: the non-private estimators (nothing a budget could be charged) and the
# pipeline whose spend depends on its parts (charge its `spend_` by hand); `Charged` takes a
# required accountant (its first purpose)
EXEMPT = {"OLSRegressor": "not private", "RadoBoostClassifier": "not private",
          "AdaBoostExamplesClassifier": "not private",
          "PrivateRegressionPipeline": "spend not plannable before fitting",
          "Charged": "accountant is its required second argument"}
ACCOUNTED = sorted(n for n in ESTIMATORS if n not in EXEMPT)
NUMBA = {"DPKendallSelector": "its numba kernels compile for about a minute on first use",
         "DPSISSelector": "its numba kernels compile on first use"}


def _slow_if_numba(names):
    return [pytest.param(n, marks=pytest.mark.slow) if n in NUMBA else n for n in names]


def _plan(name):
    _, X, _, _ = R.FIT_CASES[name]
    return planned_spend(R.make(name), X.shape[1])


def _fit(est, name):
    _, X, y, _ = R.FIT_CASES[name]
    return R.fit_quiet(est, X, y)


def test_every_private_estimator_takes_a_last_keyword_only_accountant():
    assert set(EXEMPT) <= set(ESTIMATORS), set(EXEMPT) - set(ESTIMATORS)
    for name in ACCOUNTED:
        params = list(inspect.signature(ESTIMATORS[name].__init__).parameters.values())
        last = params[-1]
        assert last.name == "accountant", name
        assert last.kind is inspect.Parameter.KEYWORD_ONLY and last.default is None, name
        doc = inspect.getdoc(ESTIMATORS[name]) + (inspect.getdoc(ESTIMATORS[name].__mro__[1]) or "")
        assert "accountant : BudgetAccountant or None" in doc, name
    for name in EXEMPT:
        if name != "Charged":
            assert "accountant" not in ESTIMATORS[name]().get_params(), name


@pytest.mark.parametrize("name", _slow_if_numba(ACCOUNTED))
def test_a_fit_charges_exactly_its_planned_spend(name):
    plan = _plan(name)
    acc = BudgetAccountant(1e9, 0.5, relation=plan.relation, tight=False)
    est = _fit(R.make(name, accountant=acc, random_state=0), name)
    assert len(acc.ledger) == 1
    line = acc.ledger[0]
    assert line.charged == plan and line.spend == plan           # same relation: no conversion
    assert type(est).__name__ in line.label
    assert _same_spend(est.spend_, plan), (est.spend_, plan)     # the fit spent what was charged
    assert acc.spent_basic.epsilon == plan.epsilon and acc.spent_basic.delta == plan.delta


def test_charged_wrapper_charges_the_inner_plan():
    name = "Charged"
    params, X, y, _ = R.FIT_CASES[name]
    acc = BudgetAccountant(100.0, 0.1, tight=False)
    est = _fit(R.make(name, accountant=acc), name)
    plan = planned_spend(params["estimator"], X.shape[1])
    assert [c.charged for c in acc.ledger] == [plan] and _same_spend(est.spend_, plan)


@pytest.mark.parametrize("name", ACCOUNTED)
def test_an_overspend_is_refused_before_any_draw(name, monkeypatch):
    plan = _plan(name)
    # half the planned epsilon (and the whole delta): the one charge must be refused
    acc = BudgetAccountant(plan.epsilon / 2, max(plan.delta, 1e-9), relation=plan.relation)
    est = R.make(name, accountant=acc, random_state=0)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(BudgetExceededError, match="refused"):
        _fit(est, name)
    assert rec.untouched(), f"{name}: a random draw happened before the refusal"
    assert not acc.ledger and not hasattr(est, "spend_")


@pytest.mark.parametrize("name", ACCOUNTED)
def test_charged_fit_refuses_bad_data_before_its_charge(name, monkeypatch):
    "charged_fit charges a plan before fitting: the fit's data checks run before it (issue 36)."
    _, X, y, _ = R.FIT_CASES[name]
    X = np.array(X, dtype=float)
    X[0, 0] = np.nan
    plan = _plan(name)
    acc = BudgetAccountant(1e9, 0.5, relation=plan.relation, tight=False)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError):
        charged_fit(acc, R.make(name, random_state=0), X, y)
    assert not acc.ledger and rec.untouched(), f"{name}: charged {acc.ledger}"


@pytest.mark.parametrize("name", [n for n in ACCOUNTED if n not in NUMBA])
def test_the_recorder_sees_the_draws_of_an_accepted_fit(name, monkeypatch):
    "Control for the test above: the same recorder, a budget that suffices, draws recorded."
    plan = _plan(name)
    acc = BudgetAccountant(2 * plan.epsilon, max(2 * plan.delta, 1e-9), relation=plan.relation)
    rec = R.DrawRecorder(monkeypatch)
    _fit(R.make(name, accountant=acc, random_state=0), name)
    assert not rec.untouched() and len(acc.ledger) == 1


def test_bad_accountant_and_unplannable_configuration_are_refused_before_any_draw(monkeypatch):
    from dplit.tukey import TukeyRegressor
    _, X, y, _ = R.FIT_CASES["TukeyRegressor"]
    acc = BudgetAccountant(10.0, 1e-3)
    rec = R.DrawRecorder(monkeypatch)
    for est, exc in ((TukeyRegressor(accountant="acc"), TypeError),
                     (TukeyRegressor(accountant={"epsilon": 1.0}), TypeError),
                     (TukeyRegressor(n_tilde=250.0, accountant=acc), TypeError)):
        with pytest.raises(exc, match="accountant"):
            est.fit(X, y)
    assert rec.untouched() and not acc.ledger


def _bas(acc, **kw):
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    return BoostedAdaSSPRegressor(**({"epsilon": 0.2, "delta": 1e-6, "n_rounds": 5} | kw),
                                  accountant=acc)


def test_searches_charge_every_fit_visibly():
    X, y = R.X4, R.Y4
    acc = BudgetAccountant(20.0, 1e-3, tight=False)
    bas = _bas(acc)
    assert clone(bas).accountant is acc and clone(bas, safe=False).get_params()["accountant"] is acc
    cross_val_score(bas, X, y, cv=3)
    assert len(acc.ledger) == 3
    gs = GridSearchCV(bas, {"epsilon": [0.1, 0.3]}, cv=2).fit(X, y)
    assert len(acc.ledger) == 3 + 2 * 2 + 1 and gs.best_estimator_.accountant is acc
    eps = [c.charged.epsilon for c in acc.ledger]
    best = gs.best_params_["epsilon"]
    assert sorted(eps) == sorted([0.2] * 3 + [0.1, 0.1, 0.3, 0.3, best])    # each fit, its own
    table = acc.table()
    assert len(table) == 8 and all("BoostedAdaSSPRegressor" in s for s in table.label)
    assert table["running epsilon"].iloc[-1] == pytest.approx(math.fsum(eps), rel=1e-15)
    assert acc.spent.epsilon == math.fsum(eps)


def test_relations_converted_by_group_privacy_or_refused(monkeypatch):
    X, y = R.X4, R.Y4
    # add/remove fit on a substitute budget: charged (2 eps, (1 + e^eps) delta), the derived rule
    sub = BudgetAccountant(10.0, 1e-3, relation="substitute", tight=False)
    _bas(sub, epsilon=0.4, delta=2e-6).fit(X, y)
    c = sub.ledger[0].charged
    assert (c.epsilon, c.delta, c.relation) == (0.8, (1 + math.exp(0.4)) * 2e-6, "substitute")
    # a substitute fit (best subset) on an add/remove budget: no derivation, refused, nothing drawn
    from dplit.bss import BestSubsetSelector
    ar = BudgetAccountant(10.0, 1e-3)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="substitution.*add/remove budget"):
        BestSubsetSelector(s=2, epsilon=0.5, random_state=0, accountant=ar).fit(X, y)
    assert rec.untouched() and not ar.ledger


def test_an_inner_accountant_is_refused_by_the_search_and_the_wrapper(monkeypatch):
    from dplit.tuning import PrivateGridSearch
    X, y = R.X4, R.Y4
    acc = BudgetAccountant(100.0, 0.1)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="estimator"):  # its runs would show how many there were
        PrivateGridSearch(_bas(acc), {"n_rounds": [3, 5]}, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="estimator"):  # charged twice otherwise
        Charged(_bas(acc), BudgetAccountant(100.0, 0.1)).fit(X, y)
    assert rec.untouched() and not acc.ledger


def test_pickle_of_a_fitted_estimator_holds_the_ledger_only():
    g = np.random.Generator(np.random.PCG64(7))
    X = g.uniform(-0.9, 0.9, (60, 3))
    y = np.clip(X @ np.array([0.5, -0.3, 0.1]) + 0.05 * g.normal(size=60), -1, 1)
    acc = BudgetAccountant(5.0, 1e-4)
    est = _bas(acc, n_rounds=4).fit(X, y)
    blob = pickle.dumps(est)
    # no training value is in the pickle, as a float64 of X or y
    for v in np.r_[X.ravel(), y]:
        assert np.float64(v).tobytes() not in blob
    back = pickle.loads(blob)
    assert back.accountant is not acc
    assert back.accountant.ledger == acc.ledger and vars(back.accountant).keys() == \
        vars(acc).keys() | {"_detached"}
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    with pytest.raises(ValueError, match="pickle"):       # the copy refuses charges ...
        back.fit(X, y)
    assert back.accountant.ledger == acc.ledger
    est.fit(X, y)                                         # ... the original still takes them
    assert len(acc.ledger) == 2


@pytest.mark.slow
def test_parallel_search_fails_loudly():
    "GridSearchCV with n_jobs=2 sends pickled accountants to its workers: their fits are refused."
    acc = BudgetAccountant(100.0, 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="pickle"):
            GridSearchCV(_bas(acc), {"n_rounds": [3, 5]}, cv=2, n_jobs=2,
                         error_score="raise").fit(R.X4, R.Y4)
    assert not acc.ledger


@pytest.mark.parametrize("name", _slow_if_numba(ACCOUNTED))
def test_every_fitted_estimator_pickles_with_its_ledger_and_no_data(name):
    _, X, y, _ = R.FIT_CASES[name]
    plan = _plan(name)
    acc = BudgetAccountant(1e9, 0.5, relation=plan.relation, tight=False)
    est = _fit(R.make(name, accountant=acc, random_state=0), name)
    blob = pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL)
    values = np.unique(np.r_[np.ravel(X), np.ravel(y) if y is not None else []])
    # 0, 1 and -1 are class labels and constants any fitted model holds (as test_rules_pickle skips them)
    leaked = [v for v in values if v not in (0.0, 1.0, -1.0) and np.float64(v).tobytes() in blob]
    assert not leaked, f"{name}: {len(leaked)} training values in the pickle"
    back = pickle.loads(blob)
    assert back.accountant.ledger == acc.ledger and back.accountant is not acc
    with pytest.raises(ValueError, match="pickle"):
        back.accountant.charge(PrivacySpend(1e-3, relation=plan.relation))


@pytest.mark.parametrize("method", ["top_r", "mistakes", "mistakes_ptr", "exponential"])
def test_best_subset_plan_is_each_methods_spend(method):
    "The plan added for BestSubsetSelector: epsilon, and delta only behind PTR, under substitution."
    from dplit.bss import BestSubsetSelector
    acc = BudgetAccountant(10.0, 1e-3, relation="substitute", tight=False)
    est = BestSubsetSelector(s=2, epsilon=0.5, method=method, gap_check="warn", delta=1e-6,
                             random_state=0, accountant=acc)
    R.fit_quiet(est, R.X4, R.Y4)
    want = (0.5, 1e-6 if method == "mistakes_ptr" else 0.0, "substitute")
    got = acc.ledger[0].charged
    assert (got.epsilon, got.delta, got.relation) == want
    assert _same_spend(est.spend_, got)


def test_top_r_with_finite_T_is_refused_not_undercharged(monkeypatch):
    "Finite T spends Theorem 1's epsilon' > epsilon: the plan cannot be epsilon, so it is refused."
    from dplit.bss import BestSubsetSelector
    free = R.fit_quiet(BestSubsetSelector(s=2, epsilon=0.5, T=4, random_state=0), R.X4, R.Y4)
    assert free.spend_.epsilon > 0.5                    # the truth the old plan (0.5) missed
    acc = BudgetAccountant(1e3, 1e-3, relation="substitute")
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(TypeError, match="accountant"):
        BestSubsetSelector(s=2, epsilon=0.5, T=4, random_state=0, accountant=acc).fit(R.X4, R.Y4)
    assert rec.untouched() and not acc.ledger


@pytest.mark.parametrize("name, bad", [
    ("BoostedAdaSSPRegressor", dict(eta=0.0)), ("BoostedAdaSSPRegressor", dict(ridge="x")),
    ("BoostedAdaSSPRegressor", dict(fit_intercept=1)), ("BoostedAdaSSPRegressor", dict(rho=0.5)),
    ("BestSubsetSelector", dict(s=4)), ("BestSubsetSelector", dict(b_x=0.0)),
    ("BestSubsetSelector", dict(bound="x")), ("BestSubsetSelector", dict(R=10)),
    ("TukeyRegressor", dict(n_share=0.0)), ("TukeyRegressor", dict(paper_accounting=0)),
])
def test_a_parameter_the_release_refuses_is_refused_before_the_charge(name, bad):
    "A typo costs no budget: the release's own checks run before the charge."
    _, X, y, _ = R.FIT_CASES[name]
    plan = _plan(name)
    acc = BudgetAccountant(1e9, 0.5, relation=plan.relation, tight=False)
    with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
        _fit(R.make(name, **bad, accountant=acc, random_state=0), name)
    assert not acc.ledger
