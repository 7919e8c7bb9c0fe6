"""recovery_trial's public clipping bounds b_x, b_y (Figure D.5 of Prastakos, Behdin & Mazumder):
the data are clipped to them and the sensitivity, score tolerance and MCMC temperature use them.

The truths are independent of dplit's code paths: the clipped data are recomputed from the unclipped
design with np.clip, and Delta, gamma and the MCMC temperature from their closed forms."""
import math

import numpy as np
import pytest

import dplit.bss_experiments as be
from dplit.bss_mip import bss_data, hinge_data

N, P, S, R = 300, 8, 2, 1.1


def _capture(monkeypatch, loss, b_x, b_y, seed=3):
    "Run one trial with _run_method replaced by a recorder; return what it was given."
    seen = {}

    def fake(meth, X, y, s, eps, draws, g, search, D, chains, n_iter, loss="squared", *a):
        seen.update(X=X, y=y, D=D, extra=a)
        return [tuple(range(0, 2 * s, 2))], None

    monkeypatch.setattr(be, "_run_method", fake)
    be.recovery_trial(N, P, S, seed, methods=("top_r",), loss=loss, b_x=b_x, b_y=b_y)
    return seen


@pytest.mark.parametrize("b_x, b_y", [(0.3, 0.7), (0.7, 0.3)])   # each bound the binding one
def test_squared_data_and_delta_follow_the_bounds(monkeypatch, b_x, b_y):
    seen = _capture(monkeypatch, "squared", b_x, b_y)
    X0, y0, _ = bss_data(N, P, S, b=1e300, rng=np.random.default_rng(3))   # unclipped design
    np.testing.assert_array_equal(seen["X"], np.clip(X0, -b_x, b_x))
    np.testing.assert_array_equal(seen["y"], np.clip(y0, -b_y, b_y))
    gamma = 1e-10 * N * b_y ** 2                                   # the public score tolerance
    assert seen["D"] == pytest.approx((b_y + b_x * R * math.sqrt(S)) ** 2 + 2 * gamma,
                                      rel=1e-12)
    assert seen["extra"] == (b_x, b_y)


def test_default_bounds_are_the_papers(monkeypatch):
    a = _capture(monkeypatch, "squared", 0.5, 0.5)
    X0, y0, _ = bss_data(N, P, S, rng=np.random.default_rng(3))     # b = 0.5 built in
    np.testing.assert_array_equal(a["X"], X0)
    np.testing.assert_array_equal(a["y"], y0)


def test_hinge_uses_b_x_only(monkeypatch):
    b_x = 0.3
    seen = _capture(monkeypatch, "hinge", b_x, 2.0)
    X0, y0, _ = hinge_data(N, P, S, b=b_x, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(seen["X"], X0)
    np.testing.assert_array_equal(seen["y"], y0)                   # labels +-1, not clipped
    assert seen["D"] == pytest.approx((1 + R * b_x * math.sqrt(S)) / N + 2e-9, rel=1e-12)


def test_mistakes_tolerance_and_mcmc_temperature_use_the_bounds(monkeypatch):
    b_x, b_y, got = 0.3, 0.7, {}

    def fake_core(X, y, s, eps, r, D, loss, rule, search, g, gamma, size=None):
        got["gamma"] = gamma
        return [tuple(range(0, 2 * s, 2))] * size, 1.0, {}

    def fake_chains(score, p, s, t, n_iter, chains, g):
        got["t"] = t
        return [tuple(range(0, 2 * s, 2))] * chains

    monkeypatch.setattr(be, "_mistakes_core", fake_core)
    monkeypatch.setattr(be, "mcmc_chains", fake_chains)
    be.recovery_trial(N, P, S, 0, methods=("mistakes", "mcmc"), draws=3, b_x=b_x, b_y=b_y,
                      epsilon=2.0)
    assert got["gamma"] == pytest.approx(1e-10 * N * b_y ** 2, rel=1e-12)
    assert got["t"] == pytest.approx(2.0 / (2 * (3.5 * b_x + b_y) ** 2), rel=1e-12)


@pytest.mark.parametrize("name", ["b_x", "b_y"])
@pytest.mark.parametrize("bad, err", [(0.0, ValueError), (-1.0, ValueError),
                                      (math.inf, ValueError), (math.nan, ValueError),
                                      ("0.5", TypeError)])
def test_bad_bounds_raise_before_any_draw(name, bad, err):
    g = np.random.default_rng(0)
    before = g.bit_generator.state
    with pytest.raises(err, match=name):
        be.recovery_trial(N, P, S, g, methods=("top_r",), **{name: bad})
    assert g.bit_generator.state == before
