"""Bad input to Boosted AdaSSP (nbs/14_boosted_adassp.ipynb): every error is a ValueError/TypeError naming the
parameter; nothing is computed on bad input."""
import math

import numpy as np
import pytest

from dplit.boosted_adassp import (BoostedAdaSSPRegressor, bas_budget, boosted_adassp, clip_rows, gdp_delta, gdp_mu,
                                  indefinite_rates, release_sensitivities, ridge_from_release)

g = np.random.default_rng(0)
X = g.normal(size=(50, 3))
y = X[:, 0] + 0.1 * g.normal(size=50)


def _fit(**kw):
    args = dict(X=X, y=y, epsilon=1.0, delta=1e-5)
    args.update(kw)
    return boosted_adassp(args.pop("X"), args.pop("y"), args.pop("epsilon"), args.pop("delta"), **args)


@pytest.mark.parametrize("bad, name", [(np.nan, "X"), (np.inf, "X")])
def test_nonfinite_X(bad, name):
    Xb = X.copy(); Xb[3, 1] = bad
    with pytest.raises(ValueError, match=name):
        _fit(X=Xb)


@pytest.mark.parametrize("bad", [np.nan, -np.inf])
def test_nonfinite_y(bad):
    yb = y.copy(); yb[7] = bad
    with pytest.raises(ValueError, match="y"):
        _fit(y=yb)


@pytest.mark.parametrize("eps, err", [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError),
                                      (math.inf, ValueError), (True, TypeError), ("1", TypeError)])
def test_bad_epsilon(eps, err):
    with pytest.raises(err, match="epsilon"):
        _fit(epsilon=eps)
    with pytest.raises(err, match="epsilon"):
        BoostedAdaSSPRegressor(epsilon=eps).fit(X, y)


@pytest.mark.parametrize("dlt", [0.0, 1.0, -1e-5, 1.5, math.nan])
def test_bad_delta(dlt):
    with pytest.raises(ValueError, match="delta"):
        _fit(delta=dlt)
    with pytest.raises(ValueError, match="delta"):
        gdp_mu(1.0, dlt)


def test_shape_mismatch_and_too_few_rows():
    with pytest.raises(ValueError, match="same number of rows"):
        _fit(y=y[:-1])
    with pytest.raises(ValueError, match="at least 2 rows"):
        _fit(X=X[:1], y=y[:1])
    with pytest.raises(ValueError, match="X must be 2-D"):
        _fit(X=X[:, 0])


@pytest.mark.parametrize("kw, err, name", [
    (dict(n_rounds=0), ValueError, "n_rounds"), (dict(n_rounds=2.0), TypeError, "n_rounds"),
    (dict(fit_intercept="yes"), TypeError, "fit_intercept"), (dict(ridge="pinv"), ValueError, "ridge"),
    (dict(shares=(0.5, 0.5)), ValueError, "shares"), (dict(shares=(0.5, 0.5, 0.5)), ValueError, "shares"),
    (dict(shares=(1.0, 0.0, 0.0)), ValueError, "shares"), (dict(shares=("a", "b", "c")), TypeError, "shares"), (dict(eta=0.0), ValueError, "eta"),
    (dict(clip_x=-1.0), ValueError, "clip_x"), (dict(clip_r=math.inf), ValueError, "clip_r"),
    (dict(rho=0.0), ValueError, "rho"), (dict(rho=0.7), ValueError, "rho"),
    (dict(rho=0.7, ridge="seed"), ValueError, "rho"), (dict(rho=math.nan, ridge="tang"), ValueError, "rho")])
def test_bad_parameters(kw, err, name):
    with pytest.raises(err, match=name):
        _fit(**kw)


def test_helpers_name_their_parameters():
    with pytest.raises(ValueError, match="mu"):
        gdp_delta(0.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        gdp_delta(1.0, -1.0)
    with pytest.raises(ValueError, match="relation"):
        release_sensitivities("replace-one")
    with pytest.raises(ValueError, match="relation"):
        bas_budget(1.0, 1e-5, relation="bounded")
    with pytest.raises(ValueError, match="bound"):
        clip_rows(X, 0.0)
    with pytest.raises(ValueError, match="ridge"):
        ridge_from_release(1.0, 1.0, 1.0, 3, rule="none")
    with pytest.raises(ValueError, match="mu"):
        indefinite_rates(X, mu=-1.0)
    with pytest.raises(ValueError, match="X"):
        indefinite_rates(np.full((5, 2), np.nan))


def test_predict_checks_its_input():
    reg = BoostedAdaSSPRegressor(epsilon=1.0, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :2])
    Xb = X.copy(); Xb[0, 0] = np.nan
    with pytest.raises(ValueError):
        reg.predict(Xb)


def test_seed_rule_warns_when_indefinite():
    "The solver never pseudo-inverts an indefinite system silently."
    Xs = 100 * g.normal(size=(300, 5))
    ys = Xs[:, 0] / 100
    with pytest.warns(RuntimeWarning, match="not positive definite"):
        for s in range(40):                     # the seed's rule is indefinite in about half the runs here
            r = _fit(X=Xs, y=ys, epsilon=0.5, ridge="seed", rng=s)
            if r.indefinite:
                break
    assert r.indefinite


def test_huge_finite_rows_are_clipped_not_zeroed():
    "Rows with entries beyond ~1e154 overflow a naive squared norm; they must still clip to norm 1, not to 0."
    from dplit.boosted_adassp import design
    for fit_intercept in (True, False):
        a, b = design(X * 1e200, fit_intercept), design(X * 1e100, fit_intercept)
        assert np.allclose(a, b, rtol=1e-12, atol=1e-15)
        assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
