"""The registered audits of nbs/09_bounds.ipynb (private_quantile, its continuous version, private_range): the shipped mechanism passes, the
half-noise and the subtle mutant are caught, and the exact losses of the pairs order as claimed. (They also run in
tests/test_audit_registry.py with the rest of the registry.)"""
import zlib

import pytest

from dplit.audit import registered_audits, run_audit

NAMES = ("private_quantile", "gridless_quantile", "private_range")


@pytest.mark.parametrize("name", NAMES)
def test_exact_losses(name):
    case = registered_audits()[name].build(full=False)
    assert set(case.variants) == {"correct", "half_noise", *(v for v in case.variants if v not in ("correct", "half_noise"))}
    assert len(case.variants) == 3
    assert case.exact["correct"] <= case.epsilon + 1e-12
    assert all(case.exact[v] > case.epsilon * 1.15 for v in case.variants if v != "correct")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", ["correct", "half_noise", "subtle"])
def test_audit(name, variant):
    case = registered_audits()[name].build(full=False)
    if variant == "subtle":
        (variant,) = [v for v in case.variants if v not in ("correct", "half_noise")]
    (rec,) = run_audit(name, variants=[variant], rng=zlib.crc32(f"bounds/{name}/{variant}".encode()))
    assert rec.ok, f"{name}/{variant}: expected {rec.expected}; {rec.result}"
