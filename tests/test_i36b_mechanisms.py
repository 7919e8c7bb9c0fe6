"""Issue 36, finding 8 and the bad inputs: `gaussian_mechanism(size=k)` states the spend of all k
copies (checked against dp_accounting's PLD composition of k separate events, which does not use
the sqrt(k) identity), and `samp_agg_select` / `gaussian_mechanism` refuse bad inputs by name."""
import numpy as np
import pytest

import dp_accounting
from dp_accounting.pld import PLDAccountant

from dplit.bss_baselines import samp_agg_select
from dplit.mechanisms import analytic_gaussian_sigma, gaussian_mechanism

H = 1e-4  # PLD value discretization: pessimistic, within k * H of the truth for k compositions


def _pld_epsilon(sigma, sens, k, delta):
    acc = PLDAccountant(value_discretization_interval=H)
    acc.compose(dp_accounting.GaussianDpEvent(sigma / sens), k)
    return acc.get_epsilon(delta)


@pytest.mark.parametrize("eps, delta, sens, k", [(1.0, 1e-5, 1.0, 10), (0.5, 1e-6, 3.0, 3),
                                                 (4.0, 1e-7, 0.2, 6), (1.0, 1e-5, 1.0, 2)])
def test_k_copies_spend_matches_the_composition_of_k_releases(eps, delta, sens, k):
    sigma = analytic_gaussian_sigma(sens, eps, delta)
    stated = gaussian_mechanism(np.zeros(2), sens, eps, delta, rng=0, size=k).spend
    truth = _pld_epsilon(sigma, sens, k, delta)
    assert truth - k * H - 1e-6 <= stated.epsilon <= truth + 1e-9, (stated, truth)
    assert stated.delta == delta and stated.epsilon > eps          # the old spend was eps
    # the recorded event composes to the same epsilon in an accountant (one event, exact)
    acc = PLDAccountant(value_discretization_interval=H)
    acc.compose(stated.events[0])
    assert abs(acc.get_epsilon(delta) - truth) <= k * H + 1e-6


def test_one_copy_spend_unchanged_and_draws_unchanged():
    a = gaussian_mechanism(np.zeros(3), 1.0, 1.0, 1e-5, rng=7)
    b = gaussian_mechanism(np.zeros(3), 1.0, 1.0, 1e-5, rng=7, size=1)
    assert a.spend.epsilon == 1.0 and b.spend.epsilon == 1.0
    assert np.array_equal(a.value, b.value[0])       # same generator calls, same draws


def test_huge_sensitivity_is_a_named_value_error():
    with pytest.raises(ValueError, match="sensitivity"):
        gaussian_mechanism(0.0, 1e308, 0.1, 1e-5, rng=0)
    with pytest.raises(ValueError, match="sensitivity"):
        analytic_gaussian_sigma(1e308, 0.1, 1e-5)


def _xy():
    g = np.random.default_rng(0)
    X = g.normal(size=(40, 5))
    return X, X[:, 0] + 0.1 * g.normal(size=40)


@pytest.mark.parametrize("S", [[-1, 0], [0, 5], [0, 10**6], [0.0, 1.0], [True, False], [1, 1],
                               [[0, 1]], [0, 1, 2]])
def test_bad_votes_are_refused_naming_vote(S):
    X, y = _xy()
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    with pytest.raises(ValueError, match="vote"):
        samp_agg_select(X, y, 2, 1.0, vote=lambda Xb, yb, s: np.array(S), rng=g)
    assert g.bit_generator.state == state                 # refused before the first draw


def test_good_votes_still_work():
    X, y = _xy()
    out = samp_agg_select(X, y, 2, 50.0, vote=lambda Xb, yb, s: [0, 4], rng=0).value
    assert out == (0, 4)


@pytest.mark.parametrize("eps, sens, k", [(1.0, 1.0, 10), (0.3, 2.0, 3)])
def test_laplace_k_copies_spend_k_releases(eps, sens, k):
    "Finding 8 for the Laplace mechanism: k copies state k eps, what k separate events compose to."
    from dplit.mechanisms import laplace_mechanism
    stated = laplace_mechanism(np.zeros(2), sens, eps, rng=0, size=k).spend
    assert stated.epsilon == k * eps and stated.delta == 0.0      # one product: same float
    acc = PLDAccountant(value_discretization_interval=H)
    acc.compose(dp_accounting.LaplaceDpEvent(1 / eps), k)        # k events, composed by PLD
    truth = acc.get_epsilon(1e-12)
    acc2 = PLDAccountant(value_discretization_interval=H)
    acc2.compose(stated.events[0])
    assert abs(acc2.get_epsilon(1e-12) - truth) <= k * H + 1e-6
    assert truth - k * H - 1e-6 <= stated.epsilon                 # not an under-count
    one = laplace_mechanism(0.0, sens, eps, rng=0).spend
    assert one.epsilon == eps and one.mechanism == "laplace"
