"""Non-audit checks of DPKendall and SubLasso (nbs/12_dpkendall.ipynb). The privacy audits (round 1 at the tight pair of
Lemma 3.2, round 2 given the history) are registered in the chapter (`dpkendall_round1`, `dpkendall_round2`) and run by
tests/test_audit_registry.py."""
import numpy as np
import pytest

from dplit.dpkendall import KendallScorer, _rounds, audit_pair, dp_kendall, sub_lasso

PAIR = audit_pair()


def test_audit_pair_is_tight():
    from dplit.kendall import KendallColumns
    (X0, y0), (X1, y1) = PAIR
    t0, t1 = np.abs(KendallColumns(X0).tau_hat(y0)), np.abs(KendallColumns(X1).tau_hat(y1))
    assert t0[0] - t1[0] == 1.5 and np.all(t1[1:] - t0[1:] == 1.0)


def test_later_round_sensitivity_mutant_is_distinguishable():
    """The k = 1 audits above cannot see rounds t > 1. A mutant that keeps Delta = 3/2 after round 1 (instead of 3)
    must change the law of the ordered selections: two-sample chi-square of dp_kendall against it (k = 3), with the
    correct mechanism against an independent run of itself as the control. (A distribution test, not an audit at a
    worst-case pair for round 2.)"""
    from dplit.dpkendall import _two_sample_p
    g = np.random.default_rng(5)
    X = g.normal(size=(30, 5)); X[:, 1] = X[:, 0] + 0.3 * g.normal(size=30)
    y = X[:, 0] + X[:, 2] + g.normal(size=30)
    R = 20_000
    runs = lambda sens: [tuple(r) for r in _rounds(KendallScorer(X, y), 5, 3, 2.0, g, R, sensitivities=sens).tolist()]
    ours = [tuple(r) for r in dp_kendall(X, y, 3, 2.0, rng=g, size=R).value.tolist()]
    assert _two_sample_p(ours, runs((1.5, 3.0))) > 1e-4
    assert _two_sample_p(ours, runs((1.5, 1.5))) < 1e-10


def test_sub_lasso_votes_have_linf_sensitivity_one(monkeypatch):
    """SubLasso's privacy rests on Delta_inf = 1 of the vote vector V under add/remove, which needs the per-record
    subset labels (a record's label does not depend on the others). Capture V through the real code path (peel_top_k
    patched to record its scores), on D and on D plus one outlier record, with the same seed: the labels of the old
    records coincide (a prefix of the same stream), so max |V - V'| must be <= 1, and 1 must be reached."""
    import dplit.dpkendall as dk
    seen = []
    real_peel = dk.peel_top_k
    monkeypatch.setattr(dk, "peel_top_k", lambda scores, *a, **kw: (seen.append(np.array(scores)), real_peel(scores, *a, **kw))[1])
    g = np.random.default_rng(7)
    worst = 0.0
    for trial in range(30):
        n, d, m, k = int(g.integers(12, 40)), int(g.integers(3, 7)), int(g.integers(1, 5)), 2
        X = g.normal(size=(n, d)); y = X[:, 0] + g.normal(size=n)
        row = g.normal(0, 1, d) * (100.0 if trial % 2 else 1.0)
        seen.clear()
        sub_lasso(X, y, k, 1.0, m=m, rng=trial)
        sub_lasso(np.vstack([X, row]), np.r_[y, 100.0 * g.normal()], k, 1.0, m=m, rng=trial)
        worst = max(worst, float(np.abs(seen[0] - seen[1]).max()))
    assert worst == 1.0, worst


def test_sub_lasso_size_path_is_the_shipped_mechanism():
    """The registered SubLasso audit runs `sub_lasso(..., size=n)` (partitions shared, Lasso fits cached). Tie it to
    the shipped one-run path and to the exact law: (a) with the same seed, size=1 gives the one-run output; (b) on the
    audit pair, 50 000 vectorised draws match `sub_lasso_law` (exact enumeration of all labellings) within 4.5 sd,
    while on D the law at 2 eps is rejected by the same test (so the test can fail)."""
    from dplit.dpkendall import sub_lasso_law, sub_lasso_pair
    g = np.random.default_rng(0)
    X = g.normal(size=(15, 4)); y = X[:, 0] + g.normal(size=15)
    for s in range(10):
        assert np.array_equal(sub_lasso(X, y, 2, 1.0, m=3, rng=s).value,
                              sub_lasso(X, y, 2, 1.0, m=3, rng=s, size=1).value[0])
    R = 50_000
    for i, data in enumerate(sub_lasso_pair()):
        ph = np.mean(sub_lasso(*data, 1, 1.0, m=2, rng=10 + i, size=R).value[:, 0] == 1)
        z = lambda p: abs(ph - p) / np.sqrt(p * (1 - p) / R)
        assert z(sub_lasso_law(*data, 1, 1.0, 2)[1]) < 4.5
        if i == 0:  # on D1 the two features are near a tie at every eps
            assert z(sub_lasso_law(*data, 1, 2.0, 2)[1]) > 10


def test_round2_audit_law_is_dp_kendalls_law():
    """The round-2 audit samples `_rounds(..., history=(0,))` and its exact losses come from `_round_law`. Tie the
    three together: (a) the registered correct variant's draws fit `_round_law` given {0}; (b) real dp_kendall runs
    (k = 3), conditioned on their first pick, fit `_round_law` given that pick; (c) the same test rejects the law at
    the later-round sensitivity 3/2 (so it can fail)."""
    from scipy import stats
    from dplit.audit import registered_audits
    from dplit.dpkendall import LATER_SENSITIVITY, _round_law, later_round_pair

    def p_fit(draws, law, labels):
        obs = np.array([(draws == j).sum() for j in labels])
        return stats.chisquare(obs, law * obs.sum()).pvalue

    case = registered_audits()["dpkendall_round2"].build()
    d0 = case.d0
    law0 = _round_law(d0, (0,), 3, 3.0, LATER_SENSITIVITY)
    rest0 = np.arange(1, d0[0].shape[1])
    draws = case.variants["correct"](d0, np.random.default_rng(1), 40_000)
    assert p_fit(draws, law0, rest0) > 1e-4
    assert p_fit(draws, _round_law(d0, (0,), 3, 3.0, 1.5), rest0) < 1e-10
    runs = dp_kendall(*d0, 3, 3.0, rng=2, size=40_000).value
    first = np.bincount(runs[:, 0]).argmax()
    rest = np.array([j for j in range(d0[0].shape[1]) if j != first])
    law = _round_law(d0, (int(first),), 3, 3.0, LATER_SENSITIVITY)
    assert p_fit(runs[runs[:, 0] == first, 1], law, rest) > 1e-4
