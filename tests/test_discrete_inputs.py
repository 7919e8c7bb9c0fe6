"""Bad input to the public functions of dplit.discrete raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit import discrete as D

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("fn,kwargs,param", [
    (D.grid_sensitivity, dict(sensitivity=0.0, granularity=0.1), "sensitivity"),
    (D.grid_sensitivity, dict(sensitivity=1.0, granularity=NAN), "granularity"),
    (D.grid_sensitivity, dict(sensitivity=1.0, granularity=0.1, d=0), "d"),
    (D.grid_sensitivity, dict(sensitivity=1.0, granularity=0.1, norm="linf"), "norm"),
    (D.discrete_laplace, dict(scale=-1.0), "scale"),
    (D.discrete_laplace, dict(scale=1.0, size=0), "size"),
    (D.discrete_gaussian, dict(sigma2=INF), "sigma2"),
    (D.discrete_log_pmf, dict(y=[0], law="cauchy", param=1.0), "law"),
    (D.discrete_log_pmf, dict(y=[0], law="laplace", param=0.0), "param"),
    (D.zcdp_log_delta, dict(rho=0.0, epsilon=1.0), "rho"),
    (D.zcdp_log_delta, dict(rho=1.0, epsilon=NAN), "epsilon"),
    (D.discrete_gaussian_sigma, dict(grid_sens=1.0, epsilon=1.0, delta=0.0), "delta"),
    (D.discrete_gaussian_exact_delta, dict(sigma=-1.0, shift=1, epsilon=1.0), "sigma"),
    (D.grid_round, dict(value=[0.0, NAN], granularity=0.1), "value"),
    (D.grid_round, dict(value=1.0, granularity=0.0), "granularity"),
    (D.sigma2_up, dict(sigma=NAN), "sigma"),
    (D.naive_reachable, dict(y=[0.0], value=0.0, scale=0.0), "scale"),
    (D.naive_reachable, dict(y=[0.0], value=NAN, scale=1.0), "value"),
    (D.mironov_fractions, dict(value0=0.0, value1=INF), "value1"),
    (D.discrete_gaussian_exact_delta, dict(sigma=1.0, shift=1.5, epsilon=1.0), "shift"),
    (D.mironov_fractions, dict(value0=0.0, value1=1.0, n=0), "n"),
    (D.discrete_laplace_mechanism, dict(value=[1.0, NAN], sensitivity=1.0, epsilon=1.0, granularity=0.1), "value"),
    (D.discrete_laplace_mechanism, dict(value=1.0, sensitivity=1.0, epsilon=0.0, granularity=0.1), "epsilon"),
    (D.discrete_laplace_mechanism, dict(value=1.0, sensitivity=1.0, epsilon=1.0, granularity=-0.1), "granularity"),
    (D.discrete_laplace_mechanism, dict(value=1e30, sensitivity=1.0, epsilon=1.0, granularity=1e-3),
     "granularity"),
    (D.discrete_gaussian_mechanism, dict(value=1.0, sensitivity=1.0, epsilon=1.0, delta=1.0, granularity=0.1),
     "delta"),
    (D.discrete_gaussian_mechanism, dict(value=1.0, sensitivity=NAN, epsilon=1.0, delta=1e-5, granularity=0.1),
     "sensitivity"),
])
def test_bad_input_names_parameter(fn, kwargs, param):
    with pytest.raises((ValueError, TypeError), match=param):
        fn(**kwargs)


def test_outputs_on_the_grid_and_reproducible():
    r = D.discrete_gaussian_mechanism(np.array([0.123, 4.56]), 1.0, 1.0, 1e-5, 0.125, rng=7)
    assert np.all((r.value / 0.125) == np.rint(r.value / 0.125))
    assert np.array_equal(r.value, D.discrete_gaussian_mechanism([0.123, 4.56], 1.0, 1.0, 1e-5, 0.125, rng=7).value)
    assert r.spend.epsilon == 1.0 and r.spend.delta == 1e-5
