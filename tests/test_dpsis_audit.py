"""Privacy audits of DP-SIS (dplit.dpsis), add/remove neighbours, 200,000 runs per side, Clopper-Pearson 95%.

* The paper's Algorithm 1 (data-dependent centring and max-abs scaling), claimed epsilon = 1, on the counterexample
  pair of the chapter (one added outlier row): the audit must report a violation (the claimed sensitivity is false).
* The clipped variant (public bounds, sensitivity 1) on its worst pair (every score moves by exactly 1): must pass;
  the mutant that runs at 2 epsilon while claiming epsilon must be caught."""
import warnings

import pytest

from dplit.dpsis import NonPrivateWarning, audit_dpsis


def test_paper_variant_fails_its_audit():
    res = audit_dpsis("paper", 1.0, n_trials=50_000, rng=401)
    assert not res.passed, str(res)
    assert res.epsilon_lower > 3.0, str(res)


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_clipped_variant_passes(eps):
    res = audit_dpsis("clipped", eps, rng=402)
    assert res.passed, str(res)


def test_clipped_two_epsilon_mutant_is_caught():
    res = audit_dpsis("clipped", 1.0, eps_factor=2.0, rng=403)
    assert not res.passed, str(res)
