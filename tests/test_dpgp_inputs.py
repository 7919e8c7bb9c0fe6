"""Bad input to the public DP-GP functions and the estimator raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.dpgp import (DPSparseGPRegressor, dpgp_inference, dpgp_noise_scales, dpgp_sensitivity, eq_kernel,
                        kernel_norm_bound, regulariser, release_statistics, rk_1d, unvech_scaled)

rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, 50)
Y = np.sin(X) * 0.5
Z = np.linspace(-3, 3, 5)


def run(**kw):
    args = dict(X=X, y=Y, Z=Z, sigma=0.1, epsilon=1.0, delta=1e-4)
    args.update(kw)
    return dpgp_inference(args.pop("X"), args.pop("y"), args.pop("Z"), args.pop("sigma"), args.pop("epsilon"),
                          args.pop("delta"), rng=0, **args)


@pytest.mark.parametrize("kw,match", [
    (dict(X=np.r_[X[:-1], np.nan]), "X"),
    (dict(X=np.r_[X[:-1], np.inf]), "X"),
    (dict(y=np.r_[Y[:-1], np.nan]), "y"),
    (dict(y=np.r_[Y[:-1], -np.inf]), "y"),
    (dict(y=Y * 10), "R_y"),
    (dict(Z=np.array([])), "Z"),
    (dict(Z=None), "Z"),
    (dict(sigma=0.0), "sigma"),
    (dict(sigma=-1.0), "sigma"),
    (dict(c=0.0), "c"),
    (dict(c=-2.0), "c"),
    (dict(delta=0.0), "delta"),
    (dict(delta=1.0), "delta"),
    (dict(delta=1.5), "delta"),
    (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=np.inf), "epsilon"),
    (dict(R_y=0.0), "R_y"),
    (dict(X=X[:10]), "same number of rows"),
    (dict(Z=np.c_[Z, Z]), "columns"),
    (dict(lengthscale=0.0), "lengthscale"),
    (dict(rho=1.0), "rho"),
    (dict(R_k="bogus"), "method"),
    (dict(form="bogus"), "form"),
])
def test_inference_rejects(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        run(**kw)


def test_clipping_must_be_stated():
    with pytest.raises(ValueError, match="clip_y"):
        run(y=Y * 10)
    run(y=Y * 10, clip_y=True)   # stated: accepted


def test_release_checks_assumptions():
    noise = dpgp_noise_scales(1.0, 1.0, 1.0, 1.0, 1e-4)
    K = eq_kernel(X, Z)
    with pytest.raises(ValueError, match="R_k"):
        release_statistics(K * 3, Y, noise)
    with pytest.raises(ValueError, match="R_y"):
        release_statistics(K / 3, Y * 10, noise)
    with pytest.raises(ValueError, match="Kxz"):
        release_statistics(np.r_[K[:-1], [[np.nan] * 5]] / 3, Y, noise)


@pytest.mark.parametrize("f,args,match", [
    (dpgp_sensitivity, (0.0, 1.0, 1.0), "R_k"),
    (dpgp_sensitivity, (1.0, -1.0, 1.0), "R_y"),
    (dpgp_sensitivity, (1.0, 1.0, 0.0), "c"),
    (dpgp_noise_scales, (1.0, 1.0, 1.0, 1.0, 0.0), "delta"),
    (dpgp_noise_scales, (1.0, 1.0, 1.0, -1.0, 1e-4), "epsilon"),
    (regulariser, (1.0, 0.0, 5), "sigma"),
    (regulariser, (1.0, 1.0, 0), "n_inducing"),
    (regulariser, (1.0, 1.0, 5, 0.0), "rho"),
    (rk_1d, (0, 1.0, np.exp), "n_inducing"),
    (kernel_norm_bound, (np.array([0.0, 0.0]),), "repeated"),
    (eq_kernel, (np.ones((3, 2)), np.ones((3, 1))), "columns"),
    (unvech_scaled, (np.ones(5), 3), "d\\(d\\+1\\)/2"),
])
def test_helpers_reject(f, args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        f(*args)


def test_regressor_inputs():
    with pytest.raises(ValueError, match="inducing_points"):
        DPSparseGPRegressor().fit(X[:, None], Y)
    with pytest.raises(ValueError, match="sigma"):
        DPSparseGPRegressor(inducing_points=Z, noise_std=0.0).fit(X[:, None], Y)
    with pytest.raises(ValueError, match="X"):
        DPSparseGPRegressor(inducing_points=Z, random_state=0).fit(np.r_[X[:-1], np.nan][:, None], Y)
    reg = DPSparseGPRegressor(inducing_points=Z, random_state=0)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        reg.predict(X[:, None])
    reg.fit(X[:, None], Y)
    with pytest.raises(ValueError, match="columns"):
        reg.predict(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X"):
        reg.predict(np.array([[np.nan]]))


def test_regressor_sklearn_api():
    from sklearn.base import clone
    reg = DPSparseGPRegressor(inducing_points=Z, random_state=3)
    m1 = reg.fit(X[:, None], Y).predict(X[:5, None])
    m2 = clone(reg).fit(X[:, None], Y).predict(X[:5, None])
    np.testing.assert_array_equal(m1, m2)                          # random_state reproduces
    mean, std = reg.predict(X[:5, None], return_std=True)
    assert mean.shape == std.shape == (5,) and np.all(std > 0)
    assert reg.spend_.relation == "substitute"
    assert np.all(np.linalg.eigvalsh(reg.S_) > -1e-10)
    m3 = DPSparseGPRegressor(inducing_points=Z, random_state=4).fit(X[:, None], Y).predict(X[:5, None])
    assert not np.allclose(m1, m3)                                  # the release is random
