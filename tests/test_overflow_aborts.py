"""Issue 21, finding 5: no aborts, no overflow surfacing as a crash, no non-finite or unnoised release.

Each case reproduces the issue's report. The three aborts run in a subprocess (an abort would kill
pytest): the child must exit 0 having seen a ValueError that names a parameter.
"""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dplit import bss, bss_baselines, bss_mip, discrete, mechanisms, tukey

TINY = float(np.finfo(np.float64).tiny)        # the smallest normal float64

ROOT = __file__.rsplit("/tests/", 1)[0]


def _data(n=40, p=5, labels=False, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-0.5, 0.5, (n, p))
    y = X[:, 0] + X[:, 1] + 0.05 * g.standard_normal(n)
    return X, (np.where(y > 0, 1.0, -1.0) if labels else np.clip(y, -0.5, 0.5))


def _child(body: str):
    """Run `body` in a fresh interpreter; it prints the ValueError it caught."""
    code = textwrap.dedent("""
        import numpy as np
        from dplit import bss, bss_mip
        g = np.random.default_rng(0)
        X = g.uniform(-0.5, 0.5, (40, 5))
        y = np.clip(X[:, 0] + X[:, 1], -0.5, 0.5)
        yl = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
        try:
    """) + textwrap.indent(textwrap.dedent(body), "    ") + textwrap.dedent("""
        except ValueError as e:
            print("VALUEERROR", e)
        else:
            print("RETURNED")
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("body, names", [
    ("bss.BestSubsetSelector(s=2, loss='hinge', search=bss_mip.HingeOASearch(), r=1e300,\n"
     "                      random_state=0).fit(X, yl)", "r"),
    ("bss_mip.HingeOASearch().top_r(X, yl, 2, 3, r=1e300)", "r"),
    ("bss_mip.MIPSearch().top_r(X, y * 1e300, 2, 3, r=1.1)", "y"),
])
def test_no_abort(body, names):
    out = _child(body)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-400:]}"
    assert "VALUEERROR" in out.stdout and names in out.stdout.split("VALUEERROR", 1)[1], out.stdout


@pytest.mark.parametrize("scale", [1e154, 1e20])
def test_mip_scores_never_inf_nor_bare_scip_error(scale):
    X, y = _data()
    with pytest.raises(ValueError, match="y"):
        bss_mip.MIPSearch().top_r(X, y * scale, 2, 3, r=1.1)


def test_mip_time_limit_bounded_to_scip():
    with pytest.raises(ValueError, match="time_limit"):
        bss_mip.MIPSearch(time_limit=1e300)
    with pytest.raises(ValueError, match="time_limit"):
        bss_mip.HingeOASearch(time_limit=1e300)
    with pytest.raises(ValueError, match="oa2_time"):
        bss_mip.MIPSearch(oa2_time=1e300)


def test_laplace_overflow_and_underflow_refused():
    with pytest.raises(ValueError, match="sensitivity"):        # scale 1e300 / 1e-10 = inf
        mechanisms.laplace_mechanism(0.3, 1e300, 1e-10, rng=0)
    with pytest.raises(ValueError, match="sensitivity"):        # scale subnormal: no noise at all
        mechanisms.laplace_mechanism(0.3, 1e-320, 1.0, rng=0)
    with pytest.raises(ValueError, match="value"):              # value + noise overflows
        mechanisms.laplace_mechanism(1.7e308, 1e300, 1e-8, rng=0)


def test_laplace_at_a_normal_scale_adds_noise():
    # the refusal above must not cost the smallest legitimate scales: at the smallest normal
    # scale the noise is still there (|noise| > 0 for almost every draw at value 0)
    r = mechanisms.laplace_mechanism(0.0, TINY, 1.0, rng=0, size=100)
    assert np.all(r.value != 0.0) and np.all(np.isfinite(r.value))


def test_every_release_finite_or_refused():
    for f in (mechanisms.laplace_mechanism, ):
        with pytest.raises(ValueError):
            f(np.array([1.7e308, -1.7e308]), 1e305, 1e-3, rng=1)
    with pytest.raises(ValueError, match="value"):           # one of the two entries overflows
        mechanisms.gaussian_mechanism(np.array([1.79e308, -1.79e308]), 1e307, 1.0, 1e-5, rng=0,
                                      size=10)


@pytest.mark.parametrize("kw", [dict(r=1e300), dict(b_x=1e300), dict(b_y=1e300)])
def test_sensitivity_overflow_named(kw):
    args = dict(b_x=0.5, b_y=0.5, r=1.1) | kw
    with pytest.raises(ValueError, match=next(iter(kw))):
        bss.sensitivity(40, 2, **args)


def test_bas_sensitivity_overflow_named():
    from dplit.boosted_adassp import release_sensitivities
    with pytest.raises(ValueError, match="clip_x"):
        release_sensitivities(clip_x=1e300)


def test_mcmc_large_epsilon_no_overflow_error():
    X, y = _data()
    with pytest.raises(ValueError, match="epsilon"):     # the bound needs e^L steps: refused, named
        bss_baselines.mcmc_select(X, y, 2, 1e3, 1e-3, rng=0)
    # mcmc_steps itself is defined there (softplus, no math.exp(1e3))
    assert bss_baselines.mcmc_steps(1e3, 1e-3, 40, 5, 2) in (math.inf,) or \
        bss_baselines.mcmc_steps(1e3, 1e-3, 40, 5, 2) > 0
    with pytest.raises(ValueError, match="b_y"):
        bss_baselines.mcmc_sensitivity(b_y=1e300)


def test_discrete_scale_bounded_not_overflowing():
    with pytest.raises(ValueError, match="scale"):
        discrete.discrete_laplace(1e300, rng=0)
    with pytest.raises(ValueError, match="sigma2"):
        discrete.discrete_gaussian(1e300, rng=0)
    with pytest.raises(ValueError, match="epsilon"):
        discrete.discrete_laplace_mechanism(0.3, 1.0, 1e-320, 0.01, rng=0)
    with pytest.raises(ValueError, match="granularity"):
        discrete.grid_sensitivity(1e300, 1e-300)
    # the largest admissible scale still samples, fast, and inside int64
    z = discrete.discrete_laplace(2**57, size=20, rng=0)
    assert z.dtype == np.int64


@pytest.mark.parametrize("kw", [dict(epsilon=1e300), dict(epsilon=1e-320), dict(delta=1e-320),
                                dict(eta=1e-320)])
def test_tukey_budget_refuses_what_float64_cannot_hold(kw):
    args = dict(epsilon=1.0, delta=1e-5) | kw
    with pytest.raises(ValueError, match=next(iter(kw))):
        tukey.tukey_budget(**args)


def test_check_scale_bounds():
    from dplit.core import check_scale
    assert check_scale(TINY, "x") == TINY
    for bad in (0.0, TINY / 2, math.inf, math.nan):
        with pytest.raises(ValueError, match="x"):
            check_scale(bad, "x")


def _tukey_data(n=20000, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, 2))
    return X, X @ np.array([1.0, -2.0]) + 0.1 * g.standard_normal(n)


def test_tukey_tiny_data_scaled_fit():
    # the SVD pseudo-inverse is scale-equivariant and the depths are affine-invariant: X * 2^-600
    # (about 2.4e-181, far below 1.5e-154) gives the same draws and the model times 2^600 (a
    # power of two, so the scaling is exact up to LAPACK's own rounding: relative 1e-9 suffices)
    X, y = _tukey_data()
    a = tukey.tukey_regression(X, y, 1.0, 1e-5, rng=1)
    b = tukey.tukey_regression(X * 2.0**-600, y, 1.0, 1e-5, rng=1)
    assert a.status == b.status == "ok"
    np.testing.assert_allclose(b.value * 2.0**-600, a.value, rtol=1e-9)


def test_tukey_refuses_subnormal_and_overflowing_ratio():
    X, y = _tukey_data(n=200)
    with pytest.raises(ValueError, match="X"):
        tukey.tukey_regression(X * 1e-320, y, 1.0, 1e-5, rng=1)
    with pytest.raises(ValueError, match="X, y"):
        tukey.tukey_regression(X * 1e-300, y * 1e300, 1.0, 1e-5, rng=1)


def test_count_shift_bit_identical_and_half_eta_valid():
    # the shift ln(1/(2 eta)) / epsilon is computed with the same expression as before the
    # overflow guards, so the release is n + noise - shift to the bit; eta = 1/2 gives shift 0
    for eps, eta in ((0.3, 1e-6), (0.07, 3e-9), (1.3, 0.2)):
        noise = np.random.default_rng(3).laplace(0.0, 1.0 / eps)
        assert tukey.private_n_lower_bound(1000, eps, eta, rng=3) == \
            1000 + noise - math.log(1 / (2 * eta)) / eps
    assert math.isfinite(tukey.private_n_lower_bound(1000, 0.3, 0.5, rng=3))
