"""Privacy audits of the core primitives at their worst-case neighbours (dplit.audit), and of their half-noise mutants.

Sample size: 200,000 runs per side (50,000 pilot). Measured over 40 seeds x 9 (mechanism, epsilon) pairs in
nbs/03_audit.ipynb (slow run): the false-alarm and miss rates are stated there."""
import pytest

from dplit.audit import audit_primitive

CASES = [(name, eps) for name in ("laplace", "exponential", "gaussian") for eps in (0.5, 1.0, 2.0)]


@pytest.mark.parametrize("name,eps", CASES)
def test_correct_mechanism_passes(name, eps):
    res = audit_primitive(name, eps, rng=101)
    assert res.passed, str(res)


@pytest.mark.parametrize("name,eps", CASES)
def test_half_noise_mutant_is_caught(name, eps):
    res = audit_primitive(name, eps, mutant=True, rng=202)
    assert not res.passed, str(res)
