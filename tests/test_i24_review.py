"""Review of issue 24 (nbs/08_accountant.ipynb): the accountant's rounding slack lets every float split of the budget
through and nothing that exceeds it by more than rounding (the derivation's bound: (1 + 2^-53)^7 < 1 + 2^-50)."""
import math

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant, BudgetExceededError
from dplit.core import PrivacySpend


def test_every_float_split_of_the_budget_is_accepted():
    g = np.random.Generator(np.random.PCG64(24))
    for _ in range(300):
        eps, k = float(g.uniform(0.01, 10.0)), int(g.integers(2, 400))
        c = g.integers(1, 1000, size=k)
        w = c / c.sum()  # exact weights c_i / C sum to 1; each stored w_i is one rounding away
        acc = BudgetAccountant(eps, tight=False)
        for share in (eps / k,) * k if g.random() < 0.5 else eps * w:  # one or two rounded operations each
            acc.charge(PrivacySpend(float(share)))
        assert acc.spent.epsilon <= eps * (1 + 2.0**-50)


@pytest.mark.parametrize("excess", [2.0**-45, 2.0**-42, 1e-12])
def test_an_excess_beyond_rounding_is_refused(excess):
    "The former slack 2^-40 accepted all three; an excess of 2^-45 of the budget is ~64 ulps, not rounding."
    acc = BudgetAccountant(1.0, 1e-6, tight=False)
    with pytest.raises(BudgetExceededError):
        acc.charge(PrivacySpend(1.0 * (1 + excess), 0.0))
    with pytest.raises(BudgetExceededError):
        acc.charge(PrivacySpend(0.5, 1e-6 * (1 + excess)))
    assert not acc.ledger
    acc.charge(PrivacySpend(math.nextafter(1.0, 2.0), 1e-6))  # one ulp over: float rounding, accepted


def test_releasing_the_number_of_runs_breaks_the_stopping_guarantee():
    """The exact law of (K, best of K) on the audit's eps-DP pair: on K = k it is P(K = k) times the best-of-k law,
    whose loss exceeds the claimed 2 eps for large k; the best alone stays within 2 eps. So K must not be released."""
    from dplit.tuning import _RS_PAIR, _RS_GAMMA, _pure_loss, best_of_law
    p, q = _RS_PAIR
    assert np.max(np.abs(np.log(p) - np.log(q))) <= 1.0
    assert _pure_loss(best_of_law(p, "logarithmic", _RS_GAMMA), best_of_law(q, "logarithmic", _RS_GAMMA)) <= 2.0
    best_of_k = lambda law, k: np.diff(np.r_[0.0, np.cumsum(law)] ** k)
    joint = max(_pure_loss(best_of_k(p, k), best_of_k(q, k)) for k in range(1, 60))  # P(K = k) cancels
    assert joint > 2.0 * 1.5, joint


def test_search_and_selection_keep_the_count_secret():
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    from dplit.tuning import PrivateGridSearch, random_stopping_select
    g = np.random.Generator(np.random.PCG64(0))
    X = g.uniform(-1, 1, (200, 2)) / 2
    y = np.clip(X.sum(1), -1, 1)
    gs = PrivateGridSearch(BoostedAdaSSPRegressor(), {"n_rounds": [2, 3]}, epsilon=2.0, delta=1e-4, gamma=0.3,
                           random_state=0)
    gs.fit(X, y)
    assert not [k for k in vars(gs) if "run" in k]
    assert len(random_stopping_select(lambda g: (0, 0.0), 1.0, rng=0)) == 3


def test_selection_spend_carries_the_runs_relation_and_bad_input_is_refused_first():
    from dplit.tuning import random_stopping_select
    calls = []
    run = lambda g: calls.append(1) or (0, 0.0)
    assert random_stopping_select(run, 0.5, rng=0, relation="substitute")[2].relation == "substitute"
    assert random_stopping_select(run, 0.5, rng=0)[2].relation == "add/remove"
    calls.clear()
    for bad, match in ((dict(relation="swap"), "relation"), (dict(kind="poisson"), "kind"), (dict(gamma=1.0), "gamma")):
        with pytest.raises(ValueError, match=match):
            random_stopping_select(run, 0.5, rng=0, **bad)
    assert not calls
