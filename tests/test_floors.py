"""Equivalence of the floor-speed implementations (issue 14) with the ones they replace.

Each test keeps a transcription of the former implementation and compares: bit-for-bit where the new code
computes the same numbers (analytic Gaussian sigma, DP-GP release, Lipschitz top-k, RadoBoost), and in law by
chi-square where the sampling path changed (Peel as an exponential race instead of Gumbel noise), with a
mutant rejected by the same test."""
import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from dplit import mechanisms as mech
from dplit.gumbel import _ordered_counts, plackett_luce_log_prob


# --- analytic Gaussian sigma: validation hoisted out of the root finding -----------------------------
def _old_log_delta(s, D, e):
    la = special.log_ndtr(D / (2 * s) - e * s / D)
    lb = special.log_ndtr(-D / (2 * s) - e * s / D)
    t = e + lb - la
    return float(la) if not t < 0 else float(la + np.log1p(-np.exp(t)))


def _old_sigma(D, e, d):
    ld = math.log(d)
    f = lambda logs: _old_log_delta(math.exp(logs), D, e) - ld
    lo, hi = math.log(D) - 1.0, math.log(D) + 1.0
    while f(lo) < 0:
        lo -= 1.0
    while f(hi) > 0:
        hi += 1.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


def _log_delta_noise(s, D, e):
    """A bound on the floating-point error of one evaluation of log delta(sigma), derived from the formula.

    log delta = la + log1p(-exp(t)), t = e + lb - la, la = log Phi(a), lb = log Phi(b). scipy's log_ndtr is
    accurate to a few ulp: we allow 8 ulp of |la| and |lb|. Forming t adds 2 roundings of the largest
    term, exp and log1p one ulp each of their results, and the final sum one ulp. An error dt in t moves
    log1p(-exp(t)) by dt * e^t / (1 - e^t): near t = 0 (tiny epsilon) this amplifies the error, which is
    why a fixed relative tolerance on sigma passes on one libm and fails on another (issue 20)."""
    u = np.finfo(float).eps
    la = float(special.log_ndtr(D / (2 * s) - e * s / D))
    lb = float(special.log_ndtr(-D / (2 * s) - e * s / D))
    t = e + lb - la
    if not t < 0:
        return 8 * u * abs(la)
    g = math.log1p(-math.exp(t))
    dt = 8 * u * (abs(la) + abs(lb)) + 2 * u * (abs(e) + abs(la) + abs(lb))
    amp = math.exp(t) / -math.expm1(t)
    return 8 * u * abs(la) + dt * amp + 2 * u * abs(g) + u * (abs(la) + abs(g))


@pytest.mark.parametrize("D", [0.3, 1.0, 7.0])
def test_analytic_gaussian_same_sigma(D):
    # The two root finders agree up to what the problem's conditioning allows. Each returns a root of
    # f(log sigma) = log delta(sigma) - log delta, with f evaluated to within eta (above) and Brent's
    # bracket at most tau = 2 (xtol + rtol |log sigma|) wide, so each is within eta/|f'| + tau of the exact
    # root in log sigma, and the two within twice that. f' (the slope of log delta in log sigma) is
    # taken by a central difference whose step error is far below the bound. A wrong root (say the
    # previous sigma's) misses by orders of magnitude more.
    u = np.finfo(float).eps
    for e in (1e-3, 0.1, 1.0, 10.0, 100.0, 1e5):
        for d in (1e-300, 1e-12, 1e-5, 0.1, 0.9):
            new, old = mech.analytic_gaussian_sigma(D, e, d), _old_sigma(D, e, d)
            h = 1e-4
            slope = (_old_log_delta(new * math.exp(h), D, e)
                     - _old_log_delta(new * math.exp(-h), D, e)) / (2 * h)
            eta = _log_delta_noise(new, D, e)
            tau = 2 * (1e-14 + 4 * u * abs(math.log(new)))
            bound = 2 * (eta / abs(slope) + tau)
            assert abs(math.log(new) - math.log(old)) <= bound, (D, e, d, bound)
            # The two evaluations of log delta differ only by floating-point noise (numpy vs math).
            got, ref = mech.gaussian_log_delta(new, D, e), _old_log_delta(new, D, e)
            assert abs(got - ref) <= 2 * eta, (D, e, d)
            # and the root is a root: the residual in log delta is within evaluation noise + bracket.
            assert abs(got - math.log(d)) <= eta + abs(slope) * tau + 2 * eta, (D, e, d)


def test_analytic_gaussian_still_validates():
    for kw, name in [(dict(delta=float("nan")), "delta"), (dict(epsilon=0.0), "epsilon"),
                     (dict(sensitivity=-1.0), "sensitivity")]:
        args = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5) | kw
        with pytest.raises((ValueError, TypeError), match=name):
            mech.analytic_gaussian_sigma(**args)
    with pytest.raises(ValueError, match="sigma"):
        mech.gaussian_log_delta(float("nan"), 1.0, 1.0)


# --- Peel: exponential race vs Gumbel noise ------------------------------------------------------------
def _gumbel_peel(c, k, b, g, n):
    noisy = c + g.gumbel(0.0, b, size=(n, len(c)))
    top = np.argpartition(-noisy, k - 1, axis=-1)[..., :k] if k < len(c) else np.tile(np.arange(len(c)), (n, 1))
    order = np.argsort(-np.take_along_axis(noisy, top, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(top, order, axis=-1)


def _race_mutant(c, k, b, g, n, rate_factor=1.1):
    # A wrong rate: every clock's log-rate scaled by 1.1 (10 % less noise).
    keys = g.standard_exponential((n, len(c))) * np.exp(rate_factor * (c.max() - c) / b)
    return mech._first_k(keys, k)


C, K, EPS, N = np.array([0.0, 0.5, 1.0, 2.0, 3.0]), 3, 3.0, 200_000
B = 2 * K / EPS
OUTCOMES = list(itertools.permutations(range(len(C)), K))
EXPECTED = N * np.exp([plackett_luce_log_prob(C, o, B) for o in OUTCOMES])


def _gof(draws):
    return float(stats.chisquare(_ordered_counts(draws, OUTCOMES), EXPECTED).pvalue)


def test_race_has_the_exact_ordered_law():
    assert _gof(mech.peel_top_k(C, K, 1.0, EPS, rng=0, size=N).value) > 1e-4


def test_race_equals_gumbel_form():
    race = _ordered_counts(mech.peel_top_k(C, K, 1.0, EPS, rng=1, size=N).value, OUTCOMES)
    gum = _ordered_counts(_gumbel_peel(C, K, B, np.random.default_rng(2), N), OUTCOMES)
    assert stats.chi2_contingency(np.vstack([race, gum]))[1] > 1e-4


def test_wrong_rate_mutant_rejected():
    assert _gof(_race_mutant(C, K, B, np.random.default_rng(3), N)) < 1e-10


def test_race_far_apart_scores():
    # Clocks e^{1e6/b} apart would overflow outside log space; with k = d they must come out in order.
    c = np.array([0.0, -1e6, -2e6, -3e6])
    out = mech.peel_top_k(c, 4, 1.0, 1.0, rng=0, size=3).value
    assert (out == np.arange(4)).all()
    # k = d on moderate scores: the full ordered law (24 outcomes)
    c4 = np.array([0.0, 1.0, 1.5, 3.0]); b = 2 * 4 / 2.0
    outs = list(itertools.permutations(range(4), 4))
    exp = 100_000 * np.exp([plackett_luce_log_prob(c4, o, b) for o in outs])
    obs = _ordered_counts(mech.peel_top_k(c4, 4, 1.0, 2.0, rng=5, size=100_000).value, outs)
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_race_reproducible():
    a = mech.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3, size=4).value
    assert (a == mech.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3, size=4).value).all()


# --- DP-GP: the kernel in one buffer, no re-validation of the derived kernel ----------------------------
from scipy.spatial.distance import cdist  # noqa: E402

from dplit import dpgp  # noqa: E402


def _old_eq_kernel(A, B, ell, v):
    return v * np.exp(-0.5 * cdist(A, B, "sqeuclidean") / ell**2)


def _data(n=2000, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-4, 4, n)
    return X, np.clip(np.sinc(2 * X / np.pi) + 0.1 * g.normal(size=n), -1.5, 1.5)


@pytest.mark.parametrize("ell,v", [(1.0, 1.0), (0.37, 1.0), (2.9, 0.6), (1e-3, 3.0)])
def test_eq_kernel_bit_identical(ell, v):
    g = np.random.default_rng(1)
    A, B = g.normal(size=(300, 3)), g.normal(size=(40, 3))
    assert np.array_equal(dpgp.eq_kernel(A, B, ell, v), _old_eq_kernel(A, B, ell, v))


@pytest.mark.parametrize("R_k", ["auto", 11.0])
def test_dpgp_release_bit_identical(R_k):
    X, y = _data()
    Z = np.linspace(-4, 4, 12)
    new = dpgp.dpgp_inference(X, y, Z, 0.1, 1.0, 1e-4, lengthscale=0.8, variance=1.3, R_y=1.5,
                              R_k=R_k, eig_floor=0.0, rng=7)  # the paper's Alg 1: the former path
    # the former path: validated public release of the public kernel
    Rk = dpgp.kernel_norm_bound(Z[:, None], 0.8, 1.3, "auto") if R_k == "auto" else R_k
    noise = dpgp.dpgp_noise_scales(Rk, 1.5, 1.0, 1.0, 1e-4)
    K = _old_eq_kernel(X[:, None], Z[:, None], 0.8, 1.3)
    rel = dpgp.release_statistics(K, y, noise, rng=7)
    A_n, B_n = dpgp.unpack_statistics(rel.value, len(Z))
    lam = dpgp.regulariser(noise.sigma_b, 0.1, len(Z), 0.01)
    Kzz = _old_eq_kernel(Z[:, None], Z[:, None], 0.8, 1.3)
    post = dpgp.noise_aware_posterior(Kzz, A_n, B_n, 0.1, noise.sigma_a, noise.sigma_b, lam, "symmetric")
    for f in ("alpha", "W"):
        assert np.array_equal(getattr(new.posterior, f), getattr(post, f)), f


def test_dpgp_nan_and_bad_bounds_still_raise():
    X, y = _data(200)
    Z = np.linspace(-4, 4, 5)
    for Xb, yb, name in [(np.r_[X[:-1], np.nan], y, "X"), (X, np.r_[y[:-1], np.nan], "y"),
                         (np.r_[X[:-1], np.inf], y, "X")]:
        with pytest.raises(ValueError, match=name):
            dpgp.dpgp_inference(Xb, yb, Z, 0.1, 1.0, 1e-4, R_y=1.5, rng=0)
    with pytest.raises(ValueError, match="Z"):
        dpgp.dpgp_inference(X, y, np.r_[Z[:-1], np.nan], 0.1, 1.0, 1e-4, R_y=1.5, rng=0)
    # a numeric R_k that passes the inducing-point test but not the data is still caught on the rows
    # (Z = +-0.8: |k(z, Z)| = 1.0379 at the inducing points, 1.0496 at x = -0.589)
    Z2 = np.array([-0.8, 0.8])
    dpgp.dpgp_inference(np.full(50, 0.8), np.zeros(50), Z2, 0.1, 1.0, 1e-4, R_k=1.04, rng=0)
    with pytest.raises(ValueError, match="R_k"):
        dpgp.dpgp_inference(np.full(50, -0.589), np.zeros(50), Z2, 0.1, 1.0, 1e-4, R_k=1.04, rng=0)
    # the public release keeps its own checks on a supplied kernel
    noise = dpgp.dpgp_noise_scales(1.0, 1.0, 1.0, 1.0, 1e-4)
    with pytest.raises(ValueError, match="Kxz"):
        dpgp.release_statistics(np.array([[np.nan, 0.0]]), np.zeros(1), noise, rng=0)
    with pytest.raises(ValueError, match="R_k"):
        dpgp.release_statistics(np.array([[1.0, 1.0]]), np.zeros(1), noise, rng=0)


# --- canonical Lipschitz top-k: only the visited prefix of the block order is built and sorted ----------
from dplit import lipschitz as lip  # noqa: E402


def _old_block_order(xs, k, a1, a2, logfact, cap=4096, max_blocks=5_000_000):
    ustep = max(1.0, a2 * float(xs[k - 1] - xs[-1]) * k / max_blocks)
    tb = lip._t_blocks(xs, k, a2, cap, ustep)
    t1, t2 = tb[:-1], tb[1:] - 1
    h = np.arange(k)[:, None]
    key = ((a2 * xs[t1 - 1])[None, :] - a1 * xs[:k][:, None] + logfact[t2 - h - 2]
           - logfact[k - h - 1] - logfact[t2 - k - 1])
    return tb, np.argsort(-key.ravel(), kind="stable")


def _cases(rng, n):
    for _ in range(n):
        d = int(rng.integers(3, 80)); k = int(rng.integers(1, d))
        yield rng.normal(0, 10 ** rng.uniform(-2, 3), d), k, 10 ** rng.uniform(-2, 2.5), rng.uniform(0, 0.99)


def test_block_order_is_a_prefix_of_the_full_sort():
    rng = np.random.default_rng(0)
    for x, k, eps, gam in _cases(rng, 200):
        _, _, k, _, _, _, xs, a1, a2 = lip._prepare(x, k, eps, gam, 1.0)
        lf = lip._logfact(len(x))
        tb0, o0 = _old_block_order(xs, k, a1, a2, lf)
        tb1, o1 = lip._block_order(xs, k, a1, a2, lf)
        assert np.array_equal(tb0, tb1) and np.array_equal(o1, o0[: len(o1)])


@pytest.mark.parametrize("sd,eps,d", [(10.0, 1.0, 20_000), (1000.0, 100.0, 20_000), (1.0, 1e4, 5000),
                                      (1e-3, 0.5, 500)])
def test_lipschitz_same_draws_as_full_sort(monkeypatch, sd, eps, d):
    x = np.random.default_rng(1).normal(0, sd, d)
    new = lip.lipschitz_top_k(x, 10, eps, rng=3, size=50, return_class=True).value
    monkeypatch.setattr(lip, "_block_order", _old_block_order)
    old = lip.lipschitz_top_k(x, 10, eps, rng=3, size=50, return_class=True).value
    assert np.array_equal(new[0], old[0]) and np.array_equal(new[1], old[1])


def test_lipschitz_small_cases_same_draws(monkeypatch):
    rng = np.random.default_rng(2)
    cases = list(_cases(rng, 100))
    new = [lip.lipschitz_top_k(x, k, e, gamma=g, rng=i, size=20).value for i, (x, k, e, g) in enumerate(cases)]
    monkeypatch.setattr(lip, "_block_order", _old_block_order)
    for i, (x, k, e, g) in enumerate(cases):
        assert np.array_equal(new[i], lip.lipschitz_top_k(x, k, e, gamma=g, rng=i, size=20).value)


# --- RadoBoost: no re-validation of drawn signatures, no materialised (T, m) margins ---------------------
from dplit import radoboost as rb  # noqa: E402
from dplit.rados import random_rados  # noqa: E402


def _old_select_train_error(path, X, y):
    errs = np.mean(path.margins_path(np.asarray(X, float)) * y[None, :] <= 0, axis=1)
    t = int(np.argmin(errs)) + 1
    return path.theta(t), t, errs


@pytest.mark.parametrize("m,d,n,T,seed", [(3000, 10, 1000, 300, 3), (801, 4, 600, 120, 8),
                                          (2000, 6, 1, 50, 1), (500, 3, 513, 200, 5)])
def test_radoboost_fit_bit_identical(m, d, n, T, seed):
    X, y = rb.synthetic_magic_like(np.random.default_rng(seed), m=m, d=d)
    ypm = np.where(y > 0, 1.0, -1.0)
    # rados: the fit's draw equals the public random_rados
    R_old = random_rados(X, ypm, n, np.random.default_rng(seed))
    assert np.array_equal(rb._fit_rados(X, ypm, n, np.random.default_rng(seed)), R_old)
    # iterate selection: the streamed errors equal the materialised ones
    path = rb.radoboost(R_old, T)
    theta, t, errs = _old_select_train_error(path, X, ypm)
    assert np.array_equal(rb._train_errors(path, X, ypm), errs)
    new_theta, new_t = rb.select_iterate(path, "train_error", X, ypm)
    assert new_t == t and np.array_equal(new_theta, theta)
    # the classifier end to end
    clf = rb.RadoBoostClassifier(n_rados=n, T=T, random_state=seed).fit(X, y)
    assert clf.kept_round_ == t and np.array_equal(clf.coef_, theta)


# --- review: extreme inputs ------------------------------------------------------------------------------
def test_race_scores_further_apart_than_the_largest_double():
    # max c - c overflows (2e308); the true lags are 2e308 / b = 3.3e7 for both low items, which must
    # then come out in either order with probability 1/2 (the former Gumbel form did so too).
    c = np.array([1e308, -1e308, -1e308])
    out = mech.peel_top_k(c, 3, 1e300, 1.0, rng=0, size=4000).value
    assert (out[:, 0] == 0).all()
    assert 0.45 < np.mean(out[:, 1] == 1) < 0.55


@pytest.mark.parametrize("ell", [1e-200, 1e-170])
def test_dpgp_lengthscale_whose_square_underflows_still_raises(ell):
    # ell^2 = 0: a data point on an inducing point gives D / (-2 ell^2) = 0 / 0 = NaN in Kxz; the release
    # must refuse, not publish NaN statistics.
    X, y, Z = np.array([0.0, 1.0, 2.0]), np.zeros(3), np.array([0.0, 5.0])
    for R_k in ("auto", 2.0):
        # refused either by the kernel check on Kxz or, earlier, by the eigenvalue floor on K_ZZ
        # (whose diagonal is 0 / 0 too); the point is that no NaN statistic is released
        with pytest.raises(ValueError, match="Kxz|K_ZZ"):
            dpgp.dpgp_inference(X, y, Z, 0.1, 1.0, 1e-4, lengthscale=ell, R_k=R_k, rng=0)
