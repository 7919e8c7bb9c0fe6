"""Issue 36 (review finding): `charged_fit` checks every step of a pipeline before its one charge.

A later private step is dry-run up to its charge on a public stand-in of the width it will receive
(`_stand_in`: no data, no draw), so a bad parameter of step 2 is refused with nothing charged and
nothing drawn; before this fix only step 1 was dry-run, and the refusal came after both steps were
charged and step 1 had drawn. Truths used: the accountant's ledger (empty after a refusal, one
line per planned step after a fit) and a recorder of every generator dplit makes (0 draws).
"""

import numpy as np
import pytest
from sklearn.pipeline import Pipeline

import _rules_registry as R
from dplit.accountant import BudgetAccountant, _same_spend, charged_fit, planned_spend

EXEMPT = {"OLSRegressor", "RadoBoostClassifier", "AdaBoostExamplesClassifier",
          "PrivateRegressionPipeline", "Charged"}     # as tests/test_i24_accountant_param.py
ACCOUNTED = sorted(n for n in R.public_estimators() if n not in EXEMPT)
NUMBA = {"DPKendallSelector", "DPSISSelector"}      # their first fit compiles for about a minute


pytestmark = pytest.mark.filterwarnings("ignore")  # every test: warnings are not what is tested


def _pipe(name, **bad):
    "PrivateClipScaler, then `name` (with `bad` parameters): its data, y, and its relation."
    from dplit import PrivateClipScaler
    _, X, y, _ = R.FIT_CASES[name]
    rel = planned_spend(R.make(name), X.shape[1]).relation
    scaler = PrivateClipScaler(epsilon=0.3, bounds=(-3.0, 3.0), n_grid=61, relation=rel,
                               random_state=1)
    return Pipeline([("scale", scaler), ("fit", R.make(name, **{"random_state": 0, **bad}))]), X, y, rel


def _refused(pipe, X, y, rel, monkeypatch, named):
    acc = BudgetAccountant(1e6, 0.5, relation=rel, tight=False)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises((ValueError, TypeError), match=named):
        charged_fit(acc, pipe, X, y)
    assert acc.ledger == [], f"charged before the refusal: {[c.label for c in acc.ledger]}"
    assert rec.untouched(), "a draw happened before the refusal"


def test_every_accounted_estimator_is_covered():
    assert len(ACCOUNTED) >= 15 and EXEMPT <= set(R.public_estimators())


@pytest.mark.parametrize("name", ACCOUNTED)
def test_a_bad_seed_of_step_2_is_refused_before_the_charge(name, monkeypatch):
    _refused(*_pipe(name, random_state="x"), monkeypatch, "random_state")


def _bss_then(step):
    from dplit.bss import BestSubsetSelector
    return Pipeline([("select", BestSubsetSelector(s=2, random_state=4)), ("fit", step)])


def _specific():
    "The review's cases: each bad parameter is refused by the step's own checks."
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression

    from dplit import AdaSSPRegressor, PrivateClipScaler
    from dplit.tukey import TukeyRegressor
    sc = PrivateClipScaler(epsilon=0.3, bounds=(-3.0, 3.0), n_grid=61, relation="substitute",
                           random_state=1)
    X, y = R.X4, R.Y4
    return [
        ("scaler-adassp-intercept", Pipeline([("scale", sc), ("fit", AdaSSPRegressor(
            fit_intercept="yes"))]), X, y, "fit_intercept"),
        ("bss-adassp-intercept", _bss_then(AdaSSPRegressor(fit_intercept="yes")), X, y,
         "fit_intercept"),
        ("bss-adassp-seed", _bss_then(AdaSSPRegressor(random_state="x")), X, y, "random_state"),
        ("scaler-tukey-intercept", Pipeline([("scale", sc), ("fit", TukeyRegressor(
            fit_intercept="yes"))]), R.XT, R.YT, "fit_intercept"),
        ("bss-sklearn-intercept", _bss_then(LinearRegression(fit_intercept="yes")), X, y,
         "fit_intercept"),                           # a non-private step: its parameters
        ("columns-first", Pipeline([("cols", ColumnTransformer([("a", PrivateClipScaler(
            epsilon=0.3, bounds=(-3.0, 3.0), n_grid=61, relation="substitute",
            random_state="x"), [0, 1])], remainder="passthrough")),
            ("fit", AdaSSPRegressor())]), X, y, "random_state"),
    ]


@pytest.mark.parametrize("case", _specific(), ids=lambda c: c[0])
def test_the_review_cases_are_refused_before_the_charge(case, monkeypatch):
    _, pipe, X, y, named = case
    _refused(pipe, X, y, "substitute", monkeypatch, named)


@pytest.mark.parametrize("name", [n for n in ACCOUNTED if n not in NUMBA])
def test_valid_pipelines_still_charged_once_and_fitted(name):
    "The control: the stand-in refuses no valid step (each registry case, as step 2)."
    pipe, X, y, rel = _pipe(name)
    acc = BudgetAccountant(1e6, 0.5, relation=rel, tight=False)
    charged_fit(acc, pipe, X, y)
    assert len(acc.ledger) == 2
    for line, step in zip(acc.ledger, (pipe[0], pipe[1])):
        assert _same_spend(step.spend_, line.spend)


def test_the_reviews_valid_pipeline_is_charged_once():
    from dplit import AdaSSPRegressor
    pipe = _bss_then(AdaSSPRegressor(random_state=4, clip_y=2.0))
    acc = BudgetAccountant(4.0, 1e-4, relation="substitute")
    charged_fit(acc, pipe, R.X4, R.Y4)
    assert len(acc.ledger) == 2 and pipe[1].coef_.shape == (2,)


@pytest.mark.parametrize("name", sorted(NUMBA))
def test_valid_numba_steps_pass_the_checks_before_the_charge(name):
    "Their fit compiles for a minute: the checks before the charge (`_check_fit`) alone."
    from dplit.accountant import _check_fit
    pipe, X, y, _ = _pipe(name)
    _check_fit(pipe, X, y)                          # raises if the stand-in refused a valid step
    with pytest.raises(TypeError, match="random_state"):
        _check_fit(_pipe(name, random_state=[1.5])[0], X, y)   # control: the check can refuse
