"""Boosted AdaSSP (nbs/14_boosted_adassp.ipynb): what is not an audit. The audits (Gram release, one round, the whole
transcript, the F-B7 substitution pair, fresh noise per round; mutants half noise, mu as noise multiplier, no
composition, add/remove calibration, one noise draw reused) are registered in the chapter ("boosted_adassp_*") and run
by tests/test_audit_registry.py. Here: the audit pair attains every sensitivity."""
import numpy as np

from dplit.boosted_adassp import audit_designs, design, gram_statistics

D0, D1 = audit_designs()


def test_pair_attains_every_sensitivity():
    X0, X1 = design(D0[0]), design(D1[0])
    (G0, l0), (G1, l1) = gram_statistics(X0), gram_statistics(X1)
    dG = G1 - G0
    assert abs(dG[-1, -1] - 1) < 1e-12 and np.abs(dG).sum() - abs(dG[-1, -1]) < 1e-12
    assert abs((l1 - l0) - 1) < 1e-12
    assert np.allclose(X1[-1], [0.0, 1.0])
