"""The accountant's PLD composition is extended charge by charge (dplit.accountant._pld_epsilon keeps the last
composition and reuses it when its events are a prefix). The truth it must equal: a fresh PLDAccountant that
composes the whole ledger at once, the definition of rule 2 in chapter 08. Both run the same composes in the same
order, so the epsilons must be equal to the last bit; any stale or wrongly reused composition shows as a difference
(a cache that ignored the prefix check, or kept a mutated composition, gives another number)."""
import math

import dp_accounting
from dp_accounting.pld import PLDAccountant

from dplit.accountant import BudgetAccountant, _pld_epsilon
from dplit.core import PrivacySpend
from dplit.mechanisms import gaussian_mechanism, laplace_mechanism


def _fresh(ledger):
    exact = [c.charged for c in ledger if c.charged.events]
    acc = PLDAccountant()
    acc.compose(dp_accounting.ComposedDpEvent([ev for c in exact for ev in c.events]))
    e_exact = math.fsum(c.epsilon for c in exact)
    e = math.fsum(c.charged.epsilon for c in ledger)
    e_tight = math.fsum(c.charged.epsilon for c in ledger if not c.charged.events) + min(
        e_exact, float(acc.get_epsilon(math.fsum(c.delta for c in exact))))
    return min(e, e_tight)


def test_incremental_composition_equals_the_whole_ledger_composed_at_once():
    a = BudgetAccountant(50.0, 1e-3)
    releases = [gaussian_mechanism(0.0, 1.0, 0.2, 1e-6, rng=0).spend,
                laplace_mechanism(0.0, 1.0, 0.3, rng=0).spend,
                gaussian_mechanism(0.0, 1.0, 0.5, 1e-7, rng=0).spend,
                PrivacySpend(0.1, 1e-7, "no events", "add/remove")]
    for i in range(6):
        s = releases[i % len(releases)]
        # a look-ahead at another release between charges: the cached composition then holds
        # ledger + other, which is not a prefix of the next ledger
        a.would_exceed(releases[(i + 1) % len(releases)])
        a.charge(s)
        if i in (3, 5):
            assert a.spent.epsilon == _fresh(a.ledger), i


def test_a_different_history_is_not_served_from_the_cache():
    g = [gaussian_mechanism(0.0, 1.0, e, 1e-6, rng=0).spend.events[0] for e in (0.2, 0.4, 0.6)]
    first = _pld_epsilon((g[0], g[1], g[2]), 3e-6)
    other = _pld_epsilon((g[0], g[2], g[2]), 3e-6)   # same length, a different middle event
    acc = PLDAccountant()
    acc.compose(dp_accounting.ComposedDpEvent([g[0], g[2], g[2]]))
    assert other == float(acc.get_epsilon(3e-6)) and other != first
    assert _pld_epsilon((g[0], g[1], g[2]), 3e-6) == first        # back again: recomposed, same
    assert _pld_epsilon((g[0], g[1], g[2]), 1e-6) > first         # another delta: another epsilon
