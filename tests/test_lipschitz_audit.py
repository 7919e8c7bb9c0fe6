"""Privacy audit of the canonical Lipschitz top-k (dplit.lipschitz) at the worst-case neighbours found by the exhaustive
search in nbs/20_lipschitz.ipynb: every score moves by exactly the sensitivity. The mechanism claimed at epsilon must
pass; the mutant that runs at 2*epsilon while claiming epsilon must be caught.
Exact log-ratios of the audited event (quadrature): gamma=1/2: 0.68 eps (correct), 1.32 eps (mutant);
gamma=0: 0.91 eps, 1.95 eps. 200,000 runs per side, Clopper-Pearson 95%."""
import pytest

from dplit.lipschitz import audit_lipschitz


@pytest.mark.parametrize("gamma", [0.5, 0.0])
def test_lipschitz_passes(gamma):
    res = audit_lipschitz(gamma, 1.0, rng=301)
    assert res.passed, str(res)


@pytest.mark.parametrize("gamma", [0.5, 0.0])
def test_lipschitz_two_epsilon_mutant_is_caught(gamma):
    res = audit_lipschitz(gamma, 1.0, eps_factor=2.0, rng=302)
    assert not res.passed, str(res)
