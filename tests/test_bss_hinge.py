"Hinge loss: the fast certified scorer's contract, the L1-SVM Samp-Agg votes, and HingeOASearch on p = 30."
import numpy as np
import pytest

from dplit.bss import _hinge_score, _hinge_score_lp, _hinge_solve, support_scores
from dplit.bss_baselines import l1svm_fit, l1svm_vote, samp_agg_select, samp_agg_votes
from dplit.bss_mip import HingeOASearch, hinge_data, one_swap_supports


@pytest.fixture(scope="module")
def data():
    return hinge_data(300, 12, 3, rng=0)


def test_scorer_never_returns_an_uncertified_gap(data):
    X, y, S = data
    with pytest.raises(RuntimeError, match="certificate"):
        _hinge_score(X[:, list(S)], y, 1.1, -1.0, max_iter=3)


def test_scorer_matches_lp_and_is_deterministic(data):
    X, y, _ = data
    g = np.random.default_rng(1)
    for _ in range(5):
        S = np.sort(g.choice(12, 3, replace=False))
        u, l = _hinge_score(X[:, S], y, 1.1, 1e-10)
        u0, l0 = _hinge_score_lp(X[:, S], y, 1.1, 1e-10)
        assert 0 <= u - l <= 1e-10 or abs(u - l) < 1e-15
        assert max(l0 - u, l - u0) <= 1e-12
        assert _hinge_score(X[:, S], y, 1.1, 1e-10) == (u, l)


def test_solve_alpha_certifies(data):
    X, y, S = data
    b = _hinge_solve(X[:, list(S)], y, 1.1, 1e-10)
    a = np.clip(b.a, 0, 1)
    M = y[:, None] * X[:, list(S)]
    # The same dual value recomputed: recursive summation of n terms errs by at most n eps times the
    # sum of their magnitudes (Higham 4.2), here over a.sum() and ||M'a||.
    g = 1.1 * np.linalg.norm(M.T @ a)
    assert abs((a.sum() - g) / len(y) - b.L) <= len(y) * np.finfo(float).eps * (a.sum() + g) / len(y)
    assert np.linalg.norm(b.b) <= 1.1 + 1e-12


def test_l1svm_vote_exactly_s(data):
    X, y, _ = data
    for A, b in ((X[:60], y[:60]), (X[:2], y[:2]), (X[:60], np.ones(60)), (np.zeros((10, 12)), y[:10])):
        v = l1svm_vote(A, b, 3)
        assert len(set(v)) == 3 and all(0 <= j < 12 for j in v)


def test_l1svm_fit_zero_above_lambda_max(data):
    X, y, _ = data
    lam_max = np.max(np.abs(X.T @ y)) / len(y)
    assert np.all(l1svm_fit(X, y, 1.01 * lam_max) == 0)
    assert np.any(l1svm_fit(X, y, 0.5 * lam_max) != 0)


def test_samp_agg_hinge_seed_and_sparsity(data):
    X, y, _ = data
    v = samp_agg_votes(X, y, 3, vote=l1svm_vote)
    assert np.isclose(v.sum(), 3)
    a = samp_agg_select(X, y, 3, 1.0, vote=l1svm_vote, rng=4)
    b = samp_agg_select(X, y, 3, 1.0, vote=l1svm_vote, rng=4)
    assert a.value == b.value and a.spend.relation == "substitute"
    with pytest.raises(ValueError, match="epsilon"):
        samp_agg_select(X, y, 3, -1.0, vote=l1svm_vote)


def test_top_r_p30_equals_one_swap_scores():
    X, y, S = hinge_data(1500, 30, 3, rng=3)
    m = HingeOASearch()
    R = 2 + 27 * 3
    L, v = m.top_r(X, y, 3, R, r=1.1)
    assert np.all(np.diff(v) >= 0)
    np.testing.assert_array_equal(v, support_scores(X, y, L, r=1.1, loss="hinge"))
    # every one-swap neighbour of the best support scoring below the R-th is listed
    P1 = one_swap_supports(L[0], 30)
    vp = support_scores(X, y, P1, r=1.1, loss="hinge")
    listed = {tuple(r) for r in L}
    assert all(tuple(s) in listed for s, w in zip(P1, vp) if w < v[-1])


def test_recovery_trial_loss_inputs():
    from dplit.bss_experiments import recovery_trial
    with pytest.raises(ValueError, match="loss"):
        recovery_trial(200, 8, 2, 0, loss="logistic")
    with pytest.raises(ValueError, match="mcmc"):
        recovery_trial(200, 8, 2, 0, methods=("mcmc",), loss="hinge")


def test_recovery_trial_hinge_small():
    from dplit.bss_experiments import recovery_trial
    rows = recovery_trial(400, 8, 2, 0, loss="hinge", draws=20)
    assert [r["method"] for r in rows] == ["top_r", "mistakes", "samp_agg"]
    assert all(0 <= r["correct"] <= 1 and 0 <= r["f1"] <= 1 for r in rows)
