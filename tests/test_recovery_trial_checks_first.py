"""recovery_trial checks methods, epsilon and the run sizes before the data are drawn (the generator's state is
unchanged by a refused call); before this, an unknown method raised only after a dataset was drawn."""
import numpy as np
import pytest

from dplit.bss_experiments import recovery_trial


@pytest.mark.parametrize("kw, name", [
    (dict(methods=["top_r", "lasso"]), "lasso"), (dict(methods="top_r"), "methods"),
    (dict(methods=["mcmc"], loss="hinge"), "mcmc"), (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=float("nan")), "epsilon"), (dict(draws=0), "draws"),
    (dict(mcmc_iter=0), "mcmc_iter"), (dict(mcmc_chains_=0), "mcmc_chains_")])
def test_bad_run_keywords_raise_before_any_draw(kw, name):
    g = np.random.default_rng(0)
    state = g.bit_generator.state
    kw = {"methods": ["samp_agg"], **kw}
    with pytest.raises((ValueError, TypeError), match=name):
        recovery_trial(50, 12, 2, g, **kw)
    assert g.bit_generator.state == state


def test_default_methods_are_all_of_the_loss():
    rows = recovery_trial(60, 8, 2, 0, draws=2, mcmc_iter=10)
    assert [r["method"] for r in rows] == ["top_r", "mistakes", "samp_agg", "mcmc"]
