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
    (dict(R_k=0.5), "data-independent"),           # below |k(z, Z)| >= 1 at an inducing point, whatever the data
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
        DPSparseGPRegressor(inducing_points=None).fit(X[:, None], Y)
    with pytest.raises(ValueError, match="input_bounds"):
        DPSparseGPRegressor(inducing_points=4, input_bounds=(1.0, -1.0)).fit(X[:, None], Y)
    with pytest.raises(ValueError, match="inducing_points"):
        DPSparseGPRegressor(inducing_points=0).fit(X[:, None], Y)
    with pytest.raises(ValueError, match="noise_std"):  # the estimator's own parameter name
        DPSparseGPRegressor(inducing_points=Z, noise_std=0.0).fit(X[:, None], Y)
    with pytest.raises(ValueError, match="X"):
        DPSparseGPRegressor(inducing_points=Z, random_state=0).fit(np.r_[X[:-1], np.nan][:, None], Y)
    reg = DPSparseGPRegressor(inducing_points=Z, random_state=0)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        reg.predict(X[:, None])
    reg.fit(X[:, None], Y)
    with pytest.raises(ValueError, match="features"):
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


# ---- chapter 41: hyperparameters, COINPRESS, heteroscedastic, classification ----
from dplit.dpgp_hyper import (coinpress_mean, coinpress_schedule, dirichlet_targets, dp_dirichlet_gp_classifier,
                              dp_hyperparameter_learning, dpgp_inference_heteroscedastic, find_root_t0,
                              heteroscedastic_sensitivity, loglik_clip_region, selection_params, zcdp_rho)


@pytest.mark.parametrize("f,args,match", [
    (zcdp_rho, (0.0, 1e-4), "epsilon"),
    (zcdp_rho, (1.0, 0.0), "delta"),
    (zcdp_rho, (1.0, 1.0), "delta"),
    (loglik_clip_region, (0.0, 0.1), "R_y"),
    (loglik_clip_region, (1.0, 0.0), "sigma"),
    (coinpress_schedule, (0.0,), "rho"),
    (coinpress_schedule, (1.0, 0), "n_iter"),
    (coinpress_schedule, (1.0, 12, 1.0), "last_share"),
    (coinpress_mean, (np.array([1.0, np.nan]), 0.0, 1.0, 0.1), "x"),
    (coinpress_mean, (np.ones(5), 0.0, 0.0, 0.1), "radius"),
    (coinpress_mean, (np.ones(5), np.nan, 1.0, 0.1), "centre"),
    (find_root_t0, (0.0,), "delta_tot"),
    (find_root_t0, (1.0,), "delta_tot"),
    (selection_params, (0.0, 1e-4, 0.01), "epsilon_tot"),
    (selection_params, (1.0, 1e-4, 0.0), "gamma"),
    (selection_params, (1.0, 1e-4, 1.0), "gamma"),
    (selection_params, (1e-9, 1e-4, 0.01), "too small"),
    (selection_params, (30.0, 0.8, 0.9), "T = 0"),
    (heteroscedastic_sensitivity, (1.0, 1.0, 0.0), "R_w"),
    (dirichlet_targets, (np.array([0, 3]), 3), "labels"),
    (dirichlet_targets, (np.array([], dtype=int), 3), "labels"),
    (dirichlet_targets, (np.array([0, 1]), 1), "n_classes"),
    (dirichlet_targets, (np.array([0, 1]), 2, 0.0), "alpha_eps"),
])
def test_hyper_helpers_reject(f, args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        f(*args)


def test_hyper_learning_rejects():
    cands = [(1.0, 0.1)]
    for kw, match in [(dict(X1=np.r_[X[:-1], np.nan]), "X"), (dict(y2=np.r_[Y[:-1], np.inf]), "y"),
                      (dict(Z=np.array([])), "Z"), (dict(candidates=[]), "candidates"),
                      (dict(candidates=[(0.0, 0.1)]), "lengthscale"), (dict(candidates=[(1.0, -0.1)]), "sigma"),
                      (dict(delta_tot=1.0), "delta_tot"), (dict(y1=Y * 10), "R_y")]:
        args = dict(X1=X, y1=Y, X2=X, y2=Y, Z=Z, candidates=cands, epsilon_tot=3.0, delta_tot=1e-4)
        args.update(kw)
        with pytest.raises((ValueError, TypeError), match=match):
            dp_hyperparameter_learning(args["X1"], args["y1"], args["X2"], args["y2"], args["Z"], args["candidates"],
                                       args["epsilon_tot"], args["delta_tot"], rng=0)


def test_heteroscedastic_rejects():
    nv = np.full(len(X), 0.1)
    with pytest.raises(ValueError, match="R_w"):
        dpgp_inference_heteroscedastic(X, Y, nv, Z, 1.0, 1e-4, R_w=1.0)
    with pytest.raises(ValueError, match="noise_var"):
        dpgp_inference_heteroscedastic(X, Y, -nv, Z, 1.0, 1e-4, R_w=20.0)
    with pytest.raises(ValueError, match="noise_var"):
        dpgp_inference_heteroscedastic(X, Y, np.r_[nv[:-1], np.nan], Z, 1.0, 1e-4, R_w=20.0)
    with pytest.raises(ValueError, match="delta"):
        dpgp_inference_heteroscedastic(X, Y, nv, Z, 1.0, 0.0, R_w=20.0)
    r = dpgp_inference_heteroscedastic(X, Y, nv, Z, 1.0, 1e-4, R_w=10.0, rng=0)
    assert r.spend.relation == "substitute"
    # the noise is calibrated to the weighted sensitivity R_w * Delta (App D), not to Delta
    assert abs(r.noise.sensitivity - heteroscedastic_sensitivity(kernel_norm_bound(Z), 1.0, 10.0)) < 1e-12 * r.noise.sensitivity


def test_classifier_spend_and_shapes():
    lab = (X > 0).astype(int)
    proba, spend = dp_dirichlet_gp_classifier(X, lab, Z, 2, 2.0, 1e-4, rng=0)
    P = proba(X[:7])
    assert P.shape == (7, 2) and np.allclose(P.sum(1), 1)
    assert spend.relation == "substitute" and abs(spend.epsilon - 2.0) < 1e-12


from sklearn.utils.estimator_checks import parametrize_with_checks


@parametrize_with_checks(
    [DPSparseGPRegressor(inducing_points=5, R_y=1.0, clip_y=True, random_state=0)],
    expected_failed_checks=lambda est: {
        "check_regressors_train": "a private fit (eps = 1, y clipped to R_y = 1, 5 random inducing points) does not "
                                  "reach sklearn's training R^2 > 0.5 on its synthetic data; expected under DP noise"})
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan")])
def test_eig_floor_refused_before_any_draw(bad):
    g = np.random.default_rng(0)
    state = g.bit_generator.state
    with pytest.raises(ValueError, match="eig_floor"):
        dpgp_inference(X, Y, Z, 0.1, 1.0, 1e-4, eig_floor=bad, rng=g)
    assert g.bit_generator.state == state
    with pytest.raises(ValueError, match="eig_floor"):
        DPSparseGPRegressor(inducing_points=Z[:, None], eig_floor=bad).fit(X[:, None], Y)


def test_eig_floor_is_post_processing():
    # same seed: the same release and the same spend with and without the floor; the floor only
    # changes the posterior; it keeps the eigenvectors of K_ZZ with eigenvalue >= tau (unit
    # variance), at least one since the top eigenvalue is >= the variance (trace = |Z| variance)
    Z9 = np.linspace(-3, 3, 9)
    fits = {t: dpgp_inference(X, Y, Z9, 0.1, 1.0, 1e-4, eig_floor=t, rng=5)
            for t in (0.0, 0.05, 1.0)}
    assert all(f.spend == fits[0.0].spend for f in fits.values())
    eig = np.linalg.eigvalsh(eq_kernel(Z9, Z9))
    assert fits[0.0].basis is None
    for t in (0.05, 1.0):
        assert fits[t].basis.shape == (9, np.sum(eig >= t)), t
    assert 1 <= np.sum(eig >= 1.0) < np.sum(eig >= 0.05) < 9
    for f in fits.values():
        mu, sd = f.predict(np.linspace(-4, 4, 11))
        assert np.all(np.isfinite(mu)) and np.all(sd > 0)
