"""Issue 24: dplit warns (NonPrivatePreprocessingWarning) when a private dplit estimator shares a scikit-learn
Pipeline with a step that learns from the data without privacy, on every path that can see the pipeline:
`dplit.core.check_private_pipeline`, `dplit.make_pipeline` (at every fit, so cross_val_score and GridSearchCV warn too),
`charged_fit` / `Charged` and `PrivateGridSearch`. Stateless steps and dplit's private transformers do not warn."""
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.pipeline import make_pipeline as sk_make_pipeline
from sklearn.preprocessing import (FunctionTransformer, Normalizer, OneHotEncoder, PolynomialFeatures,
                                   StandardScaler)

import dplit
from dplit.bounds import PrivateClipScaler
from dplit.core import NonPrivatePreprocessingWarning, check_private_pipeline, make_pipeline

G = np.random.default_rng(24)
X = G.uniform(-0.9, 0.9, size=(60, 3))
Y = np.where(X[:, 0] + 0.2 * G.normal(size=60) > 0, 1, 0)
YR = np.clip(X[:, 0] * 0.5, -0.9, 0.9)


def _clf():
    return dplit.DPRadoBoostClassifier(n_rados=10, T=5, random_state=0)


def _recorded(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [x for x in w if issubclass(x.category, NonPrivatePreprocessingWarning)]


@pytest.mark.parametrize("step", [StandardScaler(), SimpleImputer(), OneHotEncoder(handle_unknown="ignore")],
                         ids=["StandardScaler", "SimpleImputer", "OneHotEncoder"])
def test_data_dependent_transformer_before_a_private_estimator_warns(step):
    flagged, w = _recorded(lambda: check_private_pipeline(sk_make_pipeline(step, _clf())))
    assert flagged == [type(step).__name__.lower()] and len(w) == 1
    assert "not differentially private" in str(w[0].message)
    assert issubclass(NonPrivatePreprocessingWarning, UserWarning)


@pytest.mark.parametrize("step", [PrivateClipScaler(bounds=(-1.0, 1.0)), FunctionTransformer(np.tanh),
                                  Normalizer(), PolynomialFeatures(2), "passthrough"],
                         ids=["PrivateClipScaler", "FunctionTransformer", "Normalizer", "PolynomialFeatures",
                              "passthrough"])
def test_private_or_stateless_steps_do_not_warn(step):
    flagged, w = _recorded(lambda: check_private_pipeline(Pipeline([("pre", step), ("clf", _clf())])))
    assert flagged == [] and w == []


def test_no_private_step_no_warning_and_a_bare_estimator_is_never_flagged():
    assert _recorded(lambda: check_private_pipeline(sk_make_pipeline(StandardScaler(), LinearRegression())))[1] == []
    assert _recorded(lambda: check_private_pipeline(_clf())) == ([], [])
    assert _recorded(lambda: check_private_pipeline(StandardScaler())) == ([], [])


def test_nested_steps_and_non_private_dplit_steps_are_found():
    inner = ColumnTransformer([("num", StandardScaler(), [0, 1]), ("keep", "passthrough", [2])])
    flagged, w = _recorded(lambda: check_private_pipeline(Pipeline([("ct", inner), ("clf", _clf())])))
    assert flagged == ["ct/num"] and len(w) == 1
    # a ColumnTransformer's remainder is a step too (it is not in `transformers`)
    rest = ColumnTransformer([("keep", "passthrough", [0])], remainder=StandardScaler())
    flagged, w = _recorded(lambda: check_private_pipeline(Pipeline([("ct", rest), ("clf", _clf())])))
    assert flagged == ["ct/remainder"] and len(w) == 1
    # the NonDP pipeline and the non-private RadoBoost baseline next to a private step
    nondp = dplit.PrivateRegressionPipeline(pipeline="NonDP")
    flagged, _ = _recorded(lambda: check_private_pipeline(Pipeline([("s", PrivateClipScaler()), ("r", nondp)])))
    assert flagged == ["r"]
    flagged, _ = _recorded(lambda: check_private_pipeline(sk_make_pipeline(PrivateClipScaler(),
                                                                   dplit.RadoBoostClassifier())))
    assert flagged == ["radoboostclassifier"]
    # a non-private final estimator after a private transformer makes the pipeline non-private too
    flagged, _ = _recorded(lambda: check_private_pipeline(sk_make_pipeline(PrivateClipScaler(), LinearRegression())))
    assert flagged == ["linearregression"]


def test_make_pipeline_warns_at_every_fit_including_cross_validation():
    pipe = make_pipeline(StandardScaler(), _clf())
    assert isinstance(pipe, Pipeline)
    _, w = _recorded(lambda: pipe.fit(X, Y))
    assert len(w) == 1 and w[0].filename == __file__           # pointed at the caller's line
    _, w = _recorded(lambda: cross_val_score(make_pipeline(StandardScaler(), _clf()), X, Y, cv=3))
    assert len(w) == 3                                          # one per fold's fit
    again = pickle.loads(pickle.dumps(clone(pipe).fit(X, Y)))
    assert type(again) is type(pipe) and again.score(X, Y) >= 0
    _, w = _recorded(lambda: make_pipeline(PrivateClipScaler(bounds=(-1.0, 1.0), random_state=0),
                                           _clf()).fit(X, Y))
    assert w == []


def test_charged_fit_and_private_grid_search_warn():
    from dplit.accountant import BudgetAccountant, charged_fit
    from dplit.tuning import PrivateGridSearch
    pipe = sk_make_pipeline(StandardScaler(), dplit.BoostedAdaSSPRegressor(n_rounds=3))
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)

    def refused(fit):
        "The search's spend cannot be planned for a Pipeline: the fit is refused, after the warning."
        def run():
            with pytest.raises(TypeError, match="cannot be known before fitting"):
                fit()
        return run
    # charged_fit plans a pipeline's private steps before charging (issue 36): the fit goes through,
    # one warning for the non-private scaler, one charge for the regressor
    _, w = _recorded(lambda: charged_fit(acc, pipe, X, YR))
    assert len(w) == 1 and len(acc.ledger) == 1
    gs = PrivateGridSearch(pipe, {"boostedadasspregressor__n_rounds": [2, 3]}, epsilon=2.0, delta=1e-4,
                           random_state=0)
    _, w = _recorded(refused(lambda: gs.fit(X, YR)))
    assert len(w) == 1
