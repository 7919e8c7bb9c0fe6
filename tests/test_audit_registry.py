"""Every registered privacy audit (dplit.audit.register_audit), run through the registry: the correct variant
must pass and every mutant must be caught, on the registered pair at the registered number of trials. Audits that a
chapter already runs and checks in its default run are not run twice (the notebooks run as tests)."""
import json
import re
import zlib
from pathlib import Path

import pytest

from dplit.audit import registered_audits, run_audit

_AUDITS = registered_audits()
_NBS = Path(__file__).resolve().parents[1] / "nbs"


def _checked_in_notebooks():
    """Audits a notebook runs in its default (non-slow) test run, found in code cells that call `run_audit`
    and name the audit. Those cells check every record (`audit_table` raises unless the correct variant
    passes and every mutant is caught, or the cell asserts `r.ok`), so running them here again would only
    double the time of the suite (issue 20)."""
    names = set()
    for f in _NBS.glob("*.ipynb"):
        for c in json.loads(f.read_text())["cells"]:
            src = "".join(c["source"])
            if c["cell_type"] != "code" or "run_audit(" not in src or re.match(r"\s*#\|\s*slow", src):
                continue
            if "audit_table(" not in src and "r.ok" not in src:
                continue
            names |= {n for n in _AUDITS if re.search(rf"[\"']{re.escape(n)}[\"']", src)}
    return names


_IN_NOTEBOOKS = _checked_in_notebooks()


def _variants(names):
    for name in sorted(names):
        for v in _AUDITS[name].build(full=False).variants:
            yield name, v


def test_notebook_audit_discovery():
    # The discovery above must find the audits the chapters run (a broken scan would silently move
    # every audit out of the test run, or none).
    assert {"laplace", "tukey_em", "bss_mistakes", "dpgp_release"} <= _IN_NOTEBOOKS
    assert "bss_top_r" not in _IN_NOTEBOOKS  # run only in a slow cell of 50_bss


@pytest.mark.parametrize("name,variant", list(_variants(set(_AUDITS) - _IN_NOTEBOOKS)))
def test_registered_audit(name, variant):
    "Every audit that no chapter runs by default."
    (rec,) = run_audit(name, variants=[variant], rng=zlib.crc32(f"{name}/{variant}".encode()))
    assert rec.ok, f"{name}/{variant}: expected {rec.expected}; {rec.result}"


def test_every_audit_has_a_mutant():
    for name, entry in _AUDITS.items():
        case = entry.build(full=False)
        assert len(case.variants) >= 2, f"audit {name!r} has no mutant"

# The primitives at epsilon = 0.5 and 2 (with their half-noise mutants) are audited in nbs/03_audit.ipynb
# (the table under "Worst-case neighbours for the primitives"), which runs as a test: not repeated here.
