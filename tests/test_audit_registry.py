"""Every registered privacy audit (dplit.audit.register_audit), run through the registry: the correct variant
must pass and every mutant must be caught, on the registered pair at the registered number of trials."""
import zlib

import pytest

from dplit.audit import registered_audits, run_audit

_AUDITS = registered_audits()


def _variants():
    for name, entry in sorted(_AUDITS.items()):
        for v in entry.build(full=False).variants:
            yield name, v


@pytest.mark.parametrize("name,variant", list(_variants()))
def test_registered_audit(name, variant):
    (rec,) = run_audit(name, variants=[variant], rng=zlib.crc32(f"{name}/{variant}".encode()))
    assert rec.ok, f"{name}/{variant}: expected {rec.expected}; {rec.result}"


def test_every_audit_has_a_mutant():
    for name, entry in _AUDITS.items():
        case = entry.build(full=False)
        assert len(case.variants) >= 2, f"audit {name!r} has no mutant"


@pytest.mark.parametrize("name", ["laplace", "exponential", "gaussian"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_primitives_at_other_epsilons(name, eps):
    """The registry audits the primitives at epsilon = 1; the same pairs at 0.5 and 2 (formerly
    tests/test_core_audits.py): the correct mechanism passes, the half-noise mutant is caught."""
    from dplit.audit import audit_primitive
    ok = audit_primitive(name, eps, rng=101)
    bad = audit_primitive(name, eps, mutant=True, rng=202)
    assert ok.passed, str(ok)
    assert not bad.passed, str(bad)
