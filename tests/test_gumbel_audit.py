"""Privacy audit of Peel (dplit.mechanisms.peel_top_k; Dick, Gillenwater & Joseph (2023), Def 2.3 and
Lemma 2.4) at the worst-case neighbouring
counts of its proof (nbs/11_gumbel.ipynb): Delta on k items and 0 elsewhere vs the mirror image, every count moving by
Delta. The correct mechanism must pass; the half-noise mutant (Gumbel scale k*Delta/eps instead of 2k*Delta/eps) must be
caught. Exact privacy losses at these pairs (Plackett-Luce): d=3,k=1: 0.66 eps (mutant 1.31 eps); d=6,k=2: 0.73 eps
(mutant 1.46 eps). 200,000 runs per side, 95% Clopper-Pearson."""
import pytest

from dplit.audit import audit
from dplit.gumbel import peel_audit_pair
from dplit.mechanisms import peel_top_k

CASES = [(3, 1, 1.0), (6, 2, 1.0), (6, 2, 0.5), (4, 2, 2.0)]


def _mech(k, eps):
    return lambda c, g, n: peel_top_k(c, k, 1.0, eps, rng=g, size=n).value


@pytest.mark.parametrize("d,k,eps", CASES)
def test_peel_passes(d, k, eps):
    c0, c1 = peel_audit_pair(d, k)
    res = audit(_mech(k, eps), c0, c1, epsilon=eps, kind="discrete", vectorized=True, rng=11)
    assert res.passed, str(res)


@pytest.mark.parametrize("d,k,eps", CASES)
def test_half_noise_mutant_caught(d, k, eps):
    c0, c1 = peel_audit_pair(d, k)
    res = audit(_mech(k, 2 * eps), c0, c1, epsilon=eps, kind="discrete", vectorized=True, rng=12)
    assert not res.passed, str(res)
