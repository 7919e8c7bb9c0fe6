"""Bad input to every public function of the core modules raises a ValueError/TypeError naming the parameter."""
import math

import numpy as np
import pytest

from dplit import audit, core, mechanisms, verify

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("fn,kwargs,param", [
    (core.check_epsilon, dict(epsilon=NAN), "epsilon"),
    (core.check_epsilon, dict(epsilon=-INF), "epsilon"),
    (core.check_delta, dict(delta=NAN), "delta"),
    (core.check_delta, dict(delta=1.0), "delta"),
    (core.check_positive, dict(x=NAN, name="scale"), "scale"),
    (core.check_in_range, dict(x=2.0, name="gamma", low=0, high=1), "gamma"),
    (core.check_int, dict(k=2.5, name="k"), "k"),
    (core.check_k, dict(k=10, d=3), "k"),
    (core.check_array, dict(X=[[1.0, NAN]], name="X"), "X"),
    (core.check_array, dict(X=np.zeros(3), name="X"), "X"),
    (core.check_X_y, dict(X=np.zeros((3, 2)), y=[1.0, 2.0]), "rows"),
    (core.check_X_y, dict(X=np.zeros((3, 2)), y=[1.0, 2.0, NAN]), "y"),
    (core.check_no_constant_columns, dict(X=np.ones((3, 2))), "constant"),
    (core.check_binary_labels, dict(y=[0.0, 0.5]), "y"),
    (core.as_rng, dict(rng=1.5), "rng"),
    (core.as_rng, dict(rng=-3), "rng"),
    (core.spawn_rngs, dict(rng=0, n=0), "n"),
    (core.PrivacySpend, dict(epsilon=NAN), "epsilon"),
    (core.PrivacySpend, dict(epsilon=1.0, delta=1.0), "delta"),
    (core.PrivacySpend, dict(epsilon=1.0, relation="swap"), "relation"),
    (core.compose, dict(spends=[]), "spends"),
    (core.compose, dict(spends=[1.0]), "spends"),
    (mechanisms.laplace_mechanism, dict(value=NAN, sensitivity=1.0, epsilon=1.0), "value"),
    (mechanisms.laplace_mechanism, dict(value=0.0, sensitivity=1.0, epsilon=NAN), "epsilon"),
    (mechanisms.laplace_mechanism, dict(value=0.0, sensitivity=0.0, epsilon=1.0), "sensitivity"),
    (mechanisms.exponential_mechanism, dict(utility=[1.0, NAN], sensitivity=1.0, epsilon=1.0), "utility"),
    (mechanisms.exponential_mechanism, dict(utility=[1.0, 2.0], sensitivity=1.0, epsilon=0.0), "epsilon"),
    (mechanisms.exponential_log_probs, dict(utility=[[1.0]], sensitivity=1.0, epsilon=1.0), "utility"),
    (mechanisms.gumbel_noise, dict(scale=-1.0), "scale"),
    (mechanisms.peel_top_k, dict(scores=[1.0, 2.0], k=0, sensitivity=1.0, epsilon=1.0), "k"),
    (mechanisms.peel_top_k, dict(scores=[1.0, 2.0], k=1, sensitivity=1.0, epsilon=INF), "epsilon"),
    (mechanisms.analytic_gaussian_sigma, dict(sensitivity=1.0, epsilon=1.0, delta=0.0), "delta"),
    (mechanisms.analytic_gaussian_sigma, dict(sensitivity=NAN, epsilon=1.0, delta=1e-5), "sensitivity"),
    (mechanisms.gaussian_mechanism, dict(value=[INF], sensitivity=1.0, epsilon=1.0, delta=1e-5), "value"),
    (mechanisms.gaussian_mechanism, dict(value=0.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, size=0), "size"),
    (audit.audit, dict(mechanism=lambda d, g: 0.0, d0=0, d1=1, epsilon=NAN), "epsilon"),
    (audit.audit, dict(mechanism=lambda d, g: 0.0, d0=0, d1=1, epsilon=1.0, n_trials=10), "n_trials"),
    (audit.audit, dict(mechanism=lambda d, g: 0.0, d0=0, d1=1, epsilon=1.0, confidence=1.0), "confidence"),
    (audit.audit, dict(mechanism=lambda d, g, n: np.zeros(n), d0=0, d1=1, epsilon=1.0, n_trials=100, vectorized=True, kind="other"), "kind"),
    (audit.audit_primitive, dict(name="laplace", epsilon=0.0), "epsilon"),
    (audit.audit_primitive, dict(name="cauchy", epsilon=1.0), "name"),
    (audit.cp_lower, dict(k=5, n=3, alpha=0.05), "k"),
    (audit.cp_upper, dict(k=1, n=0, alpha=0.05), "n"),
    (audit.cp_upper, dict(k=1, n=10, alpha=1.5), "alpha"),
    (audit.epsilon_lower_bound, dict(k_hi=5, n_hi=10, k_lo=1, n_lo=10, delta=NAN), "delta"),
    (audit.delta_lower_bound, dict(k_hi=5, n_hi=10, k_lo=1, n_lo=10, epsilon=-1.0), "epsilon"),
    (mechanisms.gaussian_log_delta, dict(sigma=0.0, sensitivity=1.0, epsilon=1.0), "sigma"),
    (mechanisms.gaussian_log_delta, dict(sigma=1.0, sensitivity=1.0, epsilon=NAN), "epsilon"),
    (verify.select, dict(registry={"a": 1}, names=["b"]), "unknown check"),
])
def test_bad_input_raises_naming_the_parameter(fn, kwargs, param):
    with pytest.raises((ValueError, TypeError)) as exc:
        fn(**kwargs)
    assert param in str(exc.value), str(exc.value)


def test_nan_epsilon_never_returns_the_argmax():
    # A known library accepts epsilon=NaN and returns the exact argmax; dplit must refuse.
    with pytest.raises(ValueError):
        mechanisms.exponential_mechanism(np.arange(10.0), 1.0, NAN, rng=0)
    with pytest.raises(ValueError):
        mechanisms.peel_top_k(np.arange(10.0), 3, 1.0, NAN, rng=0)


def test_same_seed_same_output():
    a = mechanisms.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3).value
    b = mechanisms.peel_top_k(np.arange(50.0), 5, 1.0, 1.0, rng=3).value
    assert np.array_equal(a, b)
    assert mechanisms.gaussian_mechanism(0.0, 1.0, 1.0, 1e-5, rng=5).value == mechanisms.gaussian_mechanism(0.0, 1.0, 1.0, 1e-5, rng=5).value


def test_spends_are_reported():
    r = mechanisms.gaussian_mechanism(np.zeros(2), 1.0, 0.5, 1e-6, rng=0)
    assert (r.spend.epsilon, r.spend.delta) == (0.5, 1e-6) and r.spend.events
    assert math.isclose(core.compose([r.spend, r.spend]).epsilon, 1.0)
