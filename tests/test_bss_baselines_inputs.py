"Bad input to dplit.bss_baselines and dplit.bss_experiments raises errors that name the parameter."
import numpy as np
import pytest

from dplit.bss_baselines import (mcmc_chains, mcmc_delta, mcmc_select, mcmc_steps, mcmc_sensitivity, mcmc_temperature,
                                 samp_agg_sample, samp_agg_scale, samp_agg_select, samp_agg_votes)
from dplit.bss_experiments import recovery_trial
from dplit.bss_mip import bss_data


@pytest.fixture(scope="module")
def data():
    X, y, _ = bss_data(100, 8, 2, rng=0)
    return X, y


def test_samp_agg_inputs(data):
    X, y = data
    with pytest.raises(ValueError, match="epsilon"):
        samp_agg_select(X, y, 2, 0.0)
    with pytest.raises(ValueError, match="s"):
        samp_agg_select(X, y, 8, 1.0)
    with pytest.raises(ValueError, match="n_blocks"):
        samp_agg_votes(X, y, 2, 0)
    with pytest.raises(ValueError, match="n_blocks"):
        samp_agg_votes(X, y, 2, 101)
    with pytest.raises(ValueError, match="scale"):
        samp_agg_sample(np.ones(8) / 4, 2, -1.0)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        samp_agg_select(Xn, y, 2, 1.0)
    with pytest.raises(ValueError, match="y"):
        samp_agg_select(X, y[:-1], 2, 1.0)
    with pytest.raises(ValueError, match="distinct integer column indices"):
        samp_agg_votes(X, y, 2, 5, vote=lambda A, b, s: (0, 1, 2))


def test_samp_agg_seed(data):
    X, y = data
    a = samp_agg_select(X, y, 2, 1.0, rng=3).value
    assert a == samp_agg_select(X, y, 2, 1.0, rng=3).value
    assert samp_agg_scale(2, 10, 1.0) == pytest.approx(0.4)


def test_mcmc_inputs(data):
    X, y = data
    for kw, name in ((dict(B=0.0), "B"), (dict(b_x=-1.0), "b_x"), (dict(b_y=np.inf), "b_y")):
        with pytest.raises(ValueError, match=name):
            mcmc_sensitivity(**kw)
    with pytest.raises(ValueError, match="epsilon"):
        mcmc_temperature(np.nan)
    with pytest.raises(ValueError, match="n_iter"):
        mcmc_select(X, y, 2, 1.0, 1e-6, n_iter=-1)
    with pytest.raises(ValueError, match="s"):
        mcmc_select(X, y, 0, 1.0, 1e-6)
    for d in (0.0, 1.0, np.nan):
        with pytest.raises(ValueError, match="delta"):
            mcmc_select(X, y, 2, 1.0, d)
    with pytest.raises(ValueError, match="n_iter"):       # the bound needs more steps than allowed
        mcmc_select(X, y, 2, 1.0, 1e-6, max_iter=10)
    with pytest.raises(ValueError, match="n"):
        mcmc_delta(1.0, 0, 8, 2, 10)
    with pytest.raises(ValueError, match="n_iter"):
        mcmc_delta(1.0, 100, 8, 2, -1)
    assert mcmc_delta(1.0, 4000, 1000, 5, 10**6) == 1.0   # vacuous at the paper's sizes
    T = mcmc_steps(1.0, 1e-6, 40, 10, 2)
    assert mcmc_delta(1.0, 40, 10, 2, T) <= 1e-6 < mcmc_delta(1.0, 40, 10, 2, T - 1)
    score = lambda S: np.zeros(len(S))
    with pytest.raises(ValueError, match="n_chains"):
        mcmc_chains(score, 8, 2, 1.0, 10, 0)
    with pytest.raises(ValueError, match="temperature"):
        mcmc_chains(score, 8, 2, 0.0, 10, 3)
    X40, y40 = X[:40], y[:40]
    a = mcmc_select(X40, y40, 2, 1.0, 1e-6, rng=4)
    assert a.value == mcmc_select(X40, y40, 2, 1.0, 1e-6, rng=4).value
    assert 0 < a.spend.delta <= 1e-6


def test_trial_inputs():
    with pytest.raises(ValueError, match="method"):
        recovery_trial(200, 8, 2, 0, methods=("lasso",))
