"""SSPRegressor's intervals (chapter 70): limits with known answers, API shapes and the baseline's
sensitivities by brute force. Coverage itself is the registered check `inference_coverage`."""
import itertools
import math

import numpy as np
import pytest

from dplit.inference import (SSPRegressor, augmented_rows, pb_sensitivities, ssp_sensitivity,
                             ssp_wald_cov)


def _data(n, p=2, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-0.6, 0.6, (n, p))
    return X, 0.2 + X @ np.linspace(0.5, -0.5, p) + 0.25 * g.standard_normal(n)


def test_negligible_noise_gives_ols_and_its_interval():
    X, y = _data(2000)
    m = SSPRegressor(epsilon=1e7, delta=0.5, clip_y=4.0, n_boot=10, random_state=0).fit(X, y)
    Z = augmented_rows(X, y, 1.0, 4.0)
    G, b = Z[:, :-1].T @ Z[:, :-1], Z[:, :-1].T @ Z[:, -1]
    beta = np.linalg.solve(G, b)
    s, Ginv = m.release_.noise_sd, np.linalg.inv(G)
    # beta_hat - beta_ols ~ G^{-1}(w - W beta): each noise entry below 8 s (prob. < 1e-14 each)
    bound = np.linalg.norm(Ginv, 2) * 8 * s * 3 * (1 + np.abs(beta).sum())
    assert np.abs(np.r_[m.intercept_, m.coef_] - beta).max() <= bound
    sig2 = np.sum((Z[:, -1] - Z[:, :-1] @ beta) ** 2) / (len(y) - 3)
    se_ols = np.sqrt(sig2 * np.diag(Ginv))
    se = np.sqrt(np.diag(ssp_wald_cov(m.release_.gram, s)))
    # the privacy term s^2 P is ~1e-12 of the sampling term at this epsilon
    np.testing.assert_allclose(se, se_ols, rtol=1e-4)


def test_bootstrap_sd_matches_wald_in_the_linear_regime():
    X, y = _data(40_000, seed=1)
    m = SSPRegressor(epsilon=1.0, clip_y=2.0, n_boot=4000, random_state=2).fit(X, y)
    se_w = np.sqrt(np.diag(ssp_wald_cov(m.release_.gram, m.release_.noise_sd)))
    se_b = m.boot_coef_.std(axis=0, ddof=1)
    # sd from B draws has relative s.e. 1/sqrt(2(B-1)) = 1.1%; 4 of them, plus 2% for the
    # second-order terms (noise / smallest Gram eigenvalue is below 1% here)
    np.testing.assert_allclose(se_b, se_w, rtol=4 / math.sqrt(2 * 3999) + 0.02)


def test_interval_api():
    X, y = _data(3000, p=3, seed=3)
    m = SSPRegressor(epsilon=2.0, clip_y=2.0, n_boot=500, random_state=4).fit(X, y)
    beta = np.r_[m.intercept_, m.coef_]
    for method in ("bootstrap", "wald", "naive"):
        c95, c90 = m.conf_int(0.05, method), m.conf_int(0.10, method)
        assert c95.shape == (4, 2)
        assert np.all(c95[:, 0] <= c90[:, 0]) and np.all(c90[:, 1] <= c95[:, 1])
        if method != "bootstrap":
            np.testing.assert_allclose(c95.mean(axis=1), beta, rtol=1e-12, atol=1e-12)
        pm, po = (m.predict_interval(X[:5], 0.05, method, k) for k in ("mean", "observation"))
        assert pm.shape == (5, 2) and np.all(po[:, 1] - po[:, 0] > pm[:, 1] - pm[:, 0])
    width = {k: np.diff(m.conf_int(0.05, k), axis=1) for k in ("naive", "wald")}
    assert np.all(width["naive"] < width["wald"])
    tab = m.summary()
    assert list(tab.columns) == ["coef", "std err", "[0.025", "0.975]"]
    assert list(tab.index)[0] == "const"
    with pytest.raises(ValueError, match="kind"):
        m.predict_interval(X[:2], kind="median")


def test_sensitivity_is_the_largest_change():
    g = np.random.default_rng(5)
    iu = np.triu_indices(4)
    for cx, cy in ((1.0, 1.0), (0.5, 3.0)):
        x = g.normal(size=(50_000, 2))
        x *= cx / np.linalg.norm(x, axis=1)[:, None] * g.uniform(0, 1, (len(x), 1)) ** 0.5
        Z = augmented_rows(x, g.uniform(-cy, cy, len(x)), cx, cy)
        change = np.linalg.norm((Z[:, :, None] * Z[:, None, :])[:, iu[0], iu[1]], axis=1)
        z = np.array([1.0, cx, 0.0, cy])
        assert change.max() <= ssp_sensitivity(cx, cy) * (1 + 1e-12)
        attained = np.linalg.norm(np.outer(z, z)[iu])
        assert math.isclose(attained, ssp_sensitivity(cx, cy), rel_tol=1e-12)


@pytest.mark.parametrize("p", [1, 2])
def test_baseline_sensitivities_bound_every_substitution(p):
    gam, by = 0.7, 2.0
    vals = np.linspace(-gam, gam, 5)
    rows = [np.r_[1.0, v] for v in itertools.product(vals, repeat=p)]
    iu = np.triu_indices(p + 1)
    sens = pb_sensitivities(p, gam, by)
    worst_g = max(np.abs(np.outer(a, a)[iu] - np.outer(b, b)[iu]).sum() for a in rows for b in rows)
    worst_b = max(np.abs(a * ya - b * yb).sum() for a in rows for b in rows
                  for ya in (-by, by) for yb in (-by, by))
    assert worst_g <= sens["gram"] + 1e-12 and worst_b <= sens["xy"] + 1e-12
    assert math.isclose(worst_b, sens["xy"])            # X^T y's bound is attained


def test_ill_conditioned_release_ships_the_test_inversion_set():
    from dplit.inference import ssp_fieller
    X, y = _data(60, p=2, seed=6)
    m = SSPRegressor(epsilon=0.3, clip_y=2.0, n_boot=200, random_state=7).fit(X, y)
    M, s = m.release_.gram, m.release_.noise_sd
    # 60 rows against a noise sd of ~ 80 per entry: the floor is active (a deterministic margin:
    # lambda_min(G) <= 60 * 0.36 / 3 per slope, kappa = 2 s sqrt(3) > 200)
    assert m.floor_active_
    for method in ("bootstrap", "wald"):
        np.testing.assert_array_equal(m.conf_int(0.1, method), ssp_fieller(M, s, 0.1))
    Xt = X[:3]
    D = np.column_stack([np.ones(3), Xt])
    np.testing.assert_array_equal(m.predict_interval(Xt, 0.1), ssp_fieller(M, s, 0.1, D))
    po = m.predict_interval(Xt, 0.1, kind="observation")
    assert np.all(po[:, 0] <= ssp_fieller(M, s, 0.05, D)[:, 0])
    naive = m.conf_int(0.1, "naive")
    assert np.isfinite(naive).all()          # the comparison interval never switches


@pytest.mark.parametrize("n, eps, slope", [(100, 0.3, 8.0), (3000, 3.0, 8.0), (3000, 3.0, 0.5)])
def test_test_inversion_set_covers_at_any_slope(n, eps, slope):
    """The set holds the true beta with probability >= 1 - alpha for every beta: checked where
    the percentile bootstrap's coverage depends on beta (large slope, noise above the signal)."""
    from dplit.boosted_adassp import symmetric_noise
    from dplit.inference import ssp_fieller, ssp_noise_sd
    g, R, cy = np.random.default_rng(int(n + 10 * slope)), 2000, 10.0
    beta = np.array([0.2, slope])
    s = ssp_noise_sd(eps, 1e-6, 1.0, cy)
    M = np.empty((R, 3, 3))
    for i in range(0, R, 200):
        x = g.uniform(-1, 1, (200, n))                               # |x| <= 1 = c_x
        yv = beta[0] + slope * x + 0.25 * g.standard_normal((200, n))
        assert np.abs(yv).max() < cy                                 # no clipping
        Z = np.stack([np.ones_like(x), x, yv], -1)
        M[i:i + 200] = np.einsum("rni,rnj->rij", Z, Z)
    M += symmetric_noise(3, s, g, R)
    ci = ssp_fieller(M, s, 0.1)
    cover = ((ci[..., 0] <= beta) & (beta <= ci[..., 1])).mean(axis=0)
    # the set's coverage is >= 0.9 (exact pivot, a bound on its covariance); R = 2000 draws
    # give a binomial SE of sqrt(0.09 / 2000) = 0.0067: 3 SE below 0.9 fails
    assert cover.min() >= 0.9 - 3 * math.sqrt(0.09 / R), cover
    if n == 3000:   # s ~ 1e2 against G_11 ~ 1e3: the set must be bounded to mean anything
        assert np.isinf(ci[..., 1]).mean() < 0.5


@pytest.mark.parametrize("bad", [dict(clip_x=1e308), dict(clip_y=1e200), dict(clip_x=1e80)])
def test_ssp_bounds_whose_sensitivity_overflows_are_refused_before_the_charge(bad):
    "The sensitivity grows as the bounds' 4th power: an overflow is refused with 0 charges."
    from dplit import BudgetAccountant
    X = np.random.default_rng(0).normal(size=(50, 2))
    acc = BudgetAccountant(1.0, 1e-5)
    with pytest.raises(ValueError, match="clip_x, clip_y: too large"):
        SSPRegressor(accountant=acc, **bad).fit(X, X[:, 0])
    assert acc.ledger == []


def _narrowed(real, factor):
    "The shipped intervals (not the naive one) shrunk to `factor` of their width about the centre."
    def narrow(M, noise_sd, alpha, method="bootstrap", draws=None, D=None):
        ci = real(M, noise_sd, alpha, method, draws, D)
        if method == "naive":
            return ci
        half = (ci[..., 1] - ci[..., 0]) / 2
        fin = np.isfinite(half)          # unbounded sets stay unbounded
        mid = np.where(fin, ci[..., 0], 0.0) + np.where(fin, half, 0.0)
        return np.where(fin[..., None], np.stack([mid - factor * half, mid + factor * half], -1),
                        ci)
    return narrow


def test_coverage_check_catches_a_planted_narrow_interval(monkeypatch):
    """`inference_coverage` as `dplit verify` runs it (reduced grid) fails when the shipped
    intervals are 20% narrower. A Gaussian interval shrunk to 0.8 of its width covers
    2 Phi(0.8 z) - 1: 0.812 at 90%, 0.883 at 95%, that is 8.8 and 6.7 points low, beyond the
    check's tolerance 1.5 pp + 3 SE at R = 400 (6.0 and 4.8 points) in each of its 12 cells
    whose intervals are mostly finite (at most 6% unbounded in the full grid)."""
    import dplit.inference as inf
    monkeypatch.setattr(inf, "ssp_intervals", _narrowed(inf.ssp_intervals, 0.8))
    rec = inf.verify_inference_coverage(full=False, rng=1)
    assert not rec.passed, rec.measured


def test_stage_two_confirms_a_planted_low_cell(monkeypatch):
    """The confirmatory stage re-runs a screened cell on fresh seeds and flags it when it is
    really low: the 20% narrower interval covers about 0.81 at 90% (above), 7 binomial SE
    (R = 1000) below the 0.885 threshold."""
    import pandas as pd
    import dplit.inference as inf
    monkeypatch.setattr(inf, "ssp_intervals", _narrowed(inf.ssp_intervals, 0.8))
    ver = pd.DataFrame(dict(method=["ours (bootstrap)"], d=[2], epsilon=[3.0], n=[3000],
                            level=[0.9], coef=[1], coverage=[0.87]))
    conf = inf.confirm_low_cells(ver, R=1000, B=100, rng=2)
    assert len(conf) == 1 and bool(conf["really low"].iloc[0]), conf


def test_two_stage_pass_probability_matches_the_two_stages_simulated():
    """The exact pass probability of the full check's two stages against the two stages run on
    simulated binomial counts (N = 400,000 replications: SE <= 0.0008, 5 SE allowed) at true
    coverages where both stages matter; a formula without stage two (0.41 and 0.38 here) or
    without the screen's tolerance would be off by more. Limits: about 1 at nominal, ~0 far
    below."""
    from dplit.inference import mc_tolerance, two_stage_pass_probability
    g, N, R1, R2 = np.random.default_rng(8), 400_000, 2000, 20_000
    for lv, c in ((0.9, 0.883), (0.95, 0.933)):
        screen, confirm = g.binomial(R1, c, N) / R1, g.binomial(R2, c, N) / R2
        low = lv - 0.015
        passed = (screen >= lv - mc_tolerance(lv, R1)) & ((screen >= low) | (confirm >= low))
        p = two_stage_pass_probability(c, lv, R1, R2)
        assert abs(passed.mean() - p) <= 5 * math.sqrt(p * (1 - p) / N), (lv, c, passed.mean(), p)
    assert two_stage_pass_probability(0.9, 0.9) > 0.999
    # 5 points low: a pass needs the screen 4.4 SE above the truth (normal tail 5e-6) or the
    # re-run 14 SE above it
    assert two_stage_pass_probability(0.85, 0.9) < 1e-4
