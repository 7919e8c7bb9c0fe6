"Bad input to dplit.pipelines: clear errors naming the parameter, raised before any budget is spent."
import math

import numpy as np
import pytest

from dplit.pipelines import (PrivateRegressionPipeline, budget_split, model_counts, paper_table,
                             private_count_lower_bound, r2_experiment, synthetic_regression)

CALLS = []


def recording_factory(epsilon, delta, n_tilde, random_state):
    CALLS.append(epsilon)
    raise AssertionError("the regressor must not be reached with bad input")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(500, 8)), rng.normal(size=500)


def fit(data, X=None, y=None, **kw):
    X0, y0 = data
    kw.setdefault("regressor", recording_factory)
    return PrivateRegressionPipeline(**kw).fit(X0 if X is None else X, y0 if y is None else y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_and_y(data, bad):
    X, y = data[0].copy(), data[1].copy()
    X[3, 2] = bad
    with pytest.raises(ValueError, match="X"):
        fit(data, X=X, pipeline="K-Tukey")
    y2 = data[1].copy()
    y2[7] = bad
    with pytest.raises(ValueError, match="y"):
        fit(data, y=y2, pipeline="BAS")


@pytest.mark.parametrize("eps", [0, -1.0, np.nan, np.inf])
def test_epsilon(data, eps):
    with pytest.raises(ValueError, match="epsilon"):
        fit(data, pipeline="K-BAS", k=3, epsilon=eps)


def test_epsilon_type(data):
    with pytest.raises(TypeError, match="epsilon"):
        fit(data, pipeline="K-BAS", k=3, epsilon="1")


@pytest.mark.parametrize("dlt", [0, 1, 1.5, -1e-5, np.nan])
def test_delta(data, dlt):
    with pytest.raises(ValueError, match="delta"):
        fit(data, pipeline="Tukey", delta=dlt)


@pytest.mark.parametrize("k", [0, 8, 9, 100])
def test_k_out_of_range(data, k):
    with pytest.raises(ValueError, match="k"):
        fit(data, pipeline="L-Tukey", k=k)


def test_k_type(data):
    with pytest.raises(TypeError, match="k"):
        fit(data, pipeline="K-Tukey", k=3.0)


def test_too_few_rows(data):
    X, y = data
    with pytest.raises(ValueError, match="X"):
        fit(data, X=X[:1], y=y[:1], pipeline="BAS")
    with pytest.raises(ValueError, match="X"):
        PrivateRegressionPipeline(pipeline="NonDP").fit(X[:5], y[:5])          # 5 rows, 9 unknowns


def test_shape_mismatch(data):
    X, y = data
    with pytest.raises(ValueError, match="X and y"):
        fit(data, y=y[:-1], pipeline="K-BAS", k=2)


@pytest.mark.parametrize("kw, name", [(dict(pipeline="K-Lasso"), "pipeline"), (dict(m_rule="rows"), "m_rule"),
                                      (dict(eta=0.0), "eta"), (dict(eta=0.7), "eta"),
                                      (dict(count_share=0.0), "count_share"), (dict(selection_share=1.2), "selection_share"),
                                      (dict(count_share=0.6, selection_share=0.5), "count_share"),
                                      (dict(lasso_alpha=-1.0), "lasso_alpha")])
def test_bad_parameters(data, kw, name):
    kw.setdefault("pipeline", "L-Tukey")
    with pytest.raises(ValueError, match=name):
        fit(data, k=3, **kw)


def test_regressor_must_be_callable(data):
    with pytest.raises(TypeError, match="regressor"):
        fit(data, pipeline="BAS", regressor=3)


def test_nothing_spent_on_bad_input(data):
    CALLS.clear()
    for kw in (dict(epsilon=0), dict(k=20), dict(delta=2.0)):
        with pytest.raises(ValueError):
            fit(data, pipeline="K-Tukey", **{"k": 3, **kw})
    assert CALLS == []


def test_helpers():
    with pytest.raises(ValueError, match="eta"):
        private_count_lower_bound(100, 1.0, eta=0.5)
    with pytest.raises(ValueError, match="n"):
        private_count_lower_bound(-1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        private_count_lower_bound(100, 0.0)
    with pytest.raises(ValueError, match="pipeline"):
        budget_split("OLS")
    with pytest.raises(ValueError, match="m_rule"):
        model_counts("K-Tukey", 100.0, 9, 3, m_rule="rows")
    with pytest.raises(TypeError, match="n_tilde"):
        model_counts("K-Tukey", float("nan"), 9, 3)
    with pytest.raises(ValueError, match="k"):
        paper_table(7)
    with pytest.raises(ValueError, match="design"):
        synthetic_regression("dense")
    with pytest.raises(ValueError, match="p"):
        synthetic_regression("redundant", n=100, p=10, s=5)
    ds = {"s": synthetic_regression("sparse", n=200, p=6, s=2, rng=0)}
    with pytest.raises(ValueError, match="pipelines"):
        r2_experiment(ds, pipelines=("NonDP", "X"), progress=False)
    with pytest.raises(ValueError, match="trials"):
        r2_experiment(ds, trials=0, progress=False)


def test_predict_and_model_counts_inputs(data):
    X, y = data
    est = PrivateRegressionPipeline(pipeline="NonDP").fit(X, y)
    Xn = X[:5].copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        est.predict(Xn)
    with pytest.raises(ValueError, match="X"):
        est.predict(X[0])
    with pytest.raises(TypeError, match="k"):
        model_counts("K-Tukey", 100.0, 9, None)
    with pytest.raises(ValueError, match="k"):
        model_counts("L-Tukey", 100.0, 5, 9, m_rule="paper")


def test_tiny_test_split_has_two_rows():
    ds = {"s": synthetic_regression("sparse", n=12, p=3, s=1, rng=0)}
    res = r2_experiment(ds, pipelines=("NonDP",), ks=(1,), trials=2, rng=0, progress=False)
    assert np.all(np.isfinite(res.r2))
