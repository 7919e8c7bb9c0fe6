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


def _substitution_worst_pair():
    """Substitution neighbours (12 rows, y = 1) whose clipped scores are (10, 10, 10, 10, 2) and (12, 8, 8, 8, 4): the
    worst pair of the Lipschitz audit (dplit.lipschitz.AUDIT_PAIRS[0.5]) times the substitution sensitivity 2, plus 2
    (at gamma = 1/2 a common shift of all scores does not change the mechanism)."""
    import numpy as np
    r_old = np.array([-1.0, 1.0, 1.0, 1.0, -1.0])
    rest = np.ones((11, 5)); rest[0, 1:4] = -1; rest[:4, 4] = -1
    return (np.vstack([rest, r_old]), np.ones(12)), (np.vstack([rest, -r_old]), np.ones(12))


@pytest.mark.parametrize("relation,should_pass", [("substitute", True), ("add/remove", False)])
def test_clipped_substitution_audit(relation, should_pass):
    """relation="substitute" (sensitivity 2) must pass on substitution neighbours; running with the add/remove
    sensitivity 1 on them (the mutant) must be caught. Exact scores checked first."""
    import numpy as np
    from dplit.audit import audit
    from dplit.dpsis import clipped_scores, dp_sis
    from dplit.lipschitz import _set_code
    d0, d1 = _substitution_worst_pair()
    assert np.array_equal(clipped_scores(*d0), [10, 10, 10, 10, 2]) and np.array_equal(clipped_scores(*d1), [12, 8, 8, 8, 4])
    mech = lambda data, g, n: dp_sis(*data, 2, 1.0, rng=g, relation=relation, size=n).value
    res = audit(mech, d0, d1, epsilon=1.0, statistic=_set_code, kind="discrete", vectorized=True, rng=404)
    assert res.passed == should_pass, str(res)


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
