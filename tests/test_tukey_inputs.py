"""Bad input to the Tukey chapter (nbs/13_tukey.ipynb): every error names the offending parameter."""
import math

import numpy as np
import pytest

from dplit.tukey import (PTRFailed, TukeyRegressor, make_batches, model_profile, private_n_lower_bound,
                         ptr_distance_94, ptr_distance_95, ptr_test, ptr_threshold, restricted_em_sample,
                         tukey_budget, tukey_depth, tukey_regression)

G = np.random.default_rng(0)
B = G.normal(size=(40, 3))
P = model_profile(B)
X = G.normal(size=(300, 2))
Y = X @ [1.0, 2.0] + G.normal(size=300)


@pytest.mark.parametrize("bad, match", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "models"), (np.array([[1.0, np.inf]]), "models"),
    (np.zeros(5), "models"), (np.zeros((0, 2)), "models")])
def test_bad_models(bad, match):
    with pytest.raises(ValueError, match=match):
        model_profile(bad)


def test_depth_dimension_mismatch_and_nonfinite():
    with pytest.raises(ValueError, match="points"):
        tukey_depth(np.zeros((2, 2)), profile=P)
    with pytest.raises(ValueError, match="points"):
        tukey_depth(np.array([[np.nan, 0, 0]]), profile=P)


@pytest.mark.parametrize("t", [0, -1, 21, 2.5, None])
def test_t_out_of_range(t):
    with pytest.raises((ValueError, TypeError), match="t"):
        restricted_em_sample(B, t, 1.0, rng=0)
    with pytest.raises((ValueError, TypeError), match="t"):
        ptr_distance_95(P, t, 1.0, 1e-5)
    with pytest.raises((ValueError, TypeError), match="t"):
        ptr_distance_94(P, t, 1.0, 1e-5)


@pytest.mark.parametrize("eps", [0.0, -1.0, np.nan, np.inf, "a"])
def test_bad_epsilon(eps):
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        restricted_em_sample(B, 5, eps, rng=0)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        ptr_distance_95(P, 5, eps, 1e-5)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        tukey_regression(X, Y, eps, 1e-5, rng=0)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        ptr_threshold(eps, 1e-5)


@pytest.mark.parametrize("dlt", [0.0, 1.0, -1e-3, 2.0, np.nan])
def test_bad_delta(dlt):
    with pytest.raises((ValueError, TypeError), match="delta"):
        ptr_distance_95(P, 5, 1.0, dlt)
    with pytest.raises((ValueError, TypeError), match="delta"):
        tukey_regression(X, Y, 1.0, dlt, rng=0)
    with pytest.raises((ValueError, TypeError), match="delta"):
        ptr_test(3, 1.0, dlt, rng=0)


def test_bad_data():
    Xn = X.copy(); Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        tukey_regression(Xn, Y, 1.0, 1e-5, rng=0)
    yn = Y.copy(); yn[0] = np.inf
    with pytest.raises(ValueError, match="y"):
        tukey_regression(X, yn, 1.0, 1e-5, rng=0)
    with pytest.raises(ValueError):
        tukey_regression(X, Y[:-1], 1.0, 1e-5, rng=0)


def test_bad_budget_parameters():
    with pytest.raises(ValueError, match="eta"):
        tukey_budget(1.0, 1e-5, eta=1e-4)          # the paper's eta costs more than the whole delta
    with pytest.raises(ValueError, match="n_share"):
        tukey_budget(1.0, 1e-5, n_share=1.0)
    with pytest.raises(ValueError, match="eta"):
        private_n_lower_bound(100, 1.0, 0.0)
    with pytest.raises(ValueError, match="n_tilde"):
        tukey_regression(X, Y, 1.0, 1e-5, n_tilde=np.nan)
    for bad in (np.inf, -np.inf):
        with pytest.raises(ValueError, match="n_tilde"):
            tukey_regression(X, Y, 1.0, 1e-5, n_tilde=bad)
    with pytest.raises((ValueError, TypeError), match="m"):
        make_batches(10, 0, 2)


def test_too_few_models_is_an_outcome_not_a_crash():
    r = tukey_regression(X[:20], Y[:20], 1.0, 1e-5, rng=0)
    assert r.value is None and not r.passed and r.status in ("too_few_models", "ptr_failed")
    reg = TukeyRegressor(epsilon=1.0, delta=1e-5, random_state=0).fit(X[:20], Y[:20])
    assert reg.ptr_passed_ is False and reg.coef_ is None
    with pytest.raises(PTRFailed):
        reg.predict(X[:2])


def test_ties_fail_cleanly():
    "Identical batches (integer data, repeated rows): zero-volume regions give bot, never NaN or a crash."
    Xi = np.tile([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]], (400, 1))
    yi = Xi @ [1.0, 1.0]
    r = tukey_regression(Xi, yi, 5.0, 1e-2, rng=0)
    assert r.value is None or np.isfinite(r.value).all()         # rounding noise may leave tiny boxes
    same = np.ones((40, 2))                                       # exact ties: every box has volume 0
    p = model_profile(same)
    assert ptr_distance_95(p, 10, 1.0, 1e-2) == -1 and ptr_distance_94(p, 10, 1.0, 1e-2) == -1
    with pytest.raises(ValueError, match="volume 0"):
        restricted_em_sample(same, 10, 1.0, rng=0)
    r = tukey_regression(np.ones((900, 1)), np.full(900, 3.0), 5.0, 1e-2, rng=0)
    assert r.value is None and r.status in ("ptr_failed", "degenerate_region"), r.status


def test_predict_shape_mismatch():
    reg = TukeyRegressor(epsilon=math.log(3), delta=1e-5, random_state=0)
    Xb = G.normal(size=(20_000, 2)); yb = Xb @ [1.0, 2.0] + G.normal(size=20_000)
    reg.fit(Xb, yb)
    assert reg.ptr_passed_
    with pytest.raises(ValueError, match="X"):
        reg.predict(np.zeros((3, 5)))


def test_n_tilde_above_n_is_an_outcome():
    "floor(n_tilde) > n (probability eta): not enough rows for the batches -> bot, not a crash."
    r = tukey_regression(X, Y, 1.0, 1e-5, rng=0, n_tilde=3000.0)
    assert r.value is None and r.status == "n_tilde_exceeds_n"
