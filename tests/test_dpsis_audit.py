"""Non-audit checks of DP-SIS (dplit.dpsis). The privacy audits themselves are registered in nbs/21_dpsis.ipynb
(`dpsis`, `dpsis_substitute`, `dpsis_paper`) and run by tests/test_audit_registry.py."""


def test_two_stage_votes_have_substitution_sensitivity_one():
    """The private two-stage vote rests on: substituting one row changes one block's support, so every count moves by
    at most 1 (the partition is a data-independent permutation of the N row positions). Same seed, one row replaced by
    an outlier: max |c - c'| <= 1 and 1 is reached."""
    import numpy as np
    from dplit.dpsis import block_supports
    g = np.random.default_rng(8)
    worst = 0
    for trial in range(20):
        N, d, k = int(g.integers(16, 60)), int(g.integers(4, 9)), 2
        X = g.normal(size=(N, d)); y = X[:, 0] - X[:, 1] + g.normal(size=N)
        X1, y1 = X.copy(), y.copy()
        i = int(g.integers(N)); X1[i] = g.normal(0, 50, d); y1[i] = 50 * g.normal()
        c0 = block_supports(X, y, k, rng=trial).sum(0)
        c1 = block_supports(X1, y1, k, rng=trial).sum(0)
        worst = max(worst, int(np.abs(c0 - c1).max()))
    assert worst == 1, worst
