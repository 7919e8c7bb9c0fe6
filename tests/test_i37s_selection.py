"""Issue 37 (private feature selection for classification): DPKendall on a binary label, in a
pipeline with `RecipeClassifier` under one substitution budget (chapter 18's last section).

Truths used: exact enumeration of every small data set with a binary label and tied features
(integer arithmetic), checked itself against the O(n^2) definition of the Kendall chapter; the
O(n^2) count for the fast kernel; the steps' own `expected_spend` for the ledger.
"""

import itertools

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant, charged_fit, to_relation
from dplit.core import compose
from dplit.kendall import KendallColumns, discordance2_brute, tau_hat_from_d2
from dplit.logistic import _binary_kendall_enumeration, _kendall_pipeline

pytestmark = pytest.mark.filterwarnings("ignore")  # clipping counts are not what is tested


@pytest.fixture(scope="module")
def enum():
    return _binary_kendall_enumeration(n_max=5)


def test_binary_label_sensitivity_bounds(enum):
    for r in enum:  # integers: exact comparisons
        assert r["round1"] <= r["scale"]           # binary label: round 1 moves by <= 1
        assert 2 * r["round2"] <= 5 * r["scale"]   # later rounds by <= 1 + 3/2
        assert r["round1"] == r["scale"]           # and 1 is reached
    assert max(2 * r["round2"] - 4 * r["scale"] for r in enum) > 0  # above 2 somewhere


def test_mutants_caught(enum):
    assert any(2 * r["unnormalised"] > 3 for r in enum)            # |S| paid at 3/2
    assert any(2 * r["round2"] > 3 * r["scale"] for r in enum)     # round 2 paid at 3/2
    assert any(r["round2"] > 2 * r["scale"] for r in enum)         # round 2 paid at 2
    assert any(2 * r["round1"] > r["scale"] for r in enum)         # round 1 paid at 1/2


def test_enumeration_against_the_definition():
    """The enumeration's closed form against tau_hat from the O(n^2) count, every data set of
    n <= 3 rows over a 2-letter alphabet, every added row (floats: a bound of 1e-12)."""
    types = list(itertools.product((0, 1), (0, 1), (0, 1)))
    tau = lambda a, b: float(tau_hat_from_d2(discordance2_brute(a, b), len(a)))
    for r in _binary_kendall_enumeration(n_max=3, alphabet=(0, 1)):
        n, best1, best2 = r["n"], 0.0, 0.0
        for rows in itertools.combinations_with_replacement(types, n):
            for new in types:
                out = []
                for D in (np.array(rows, float), np.array(rows + (new,), float)):
                    ty, tx = tau(D[:, 1], D[:, 2]), tau(D[:, 1], D[:, 0])
                    out.append((abs(ty), abs(ty) - abs(tx)))
                best1 = max(best1, abs(out[1][0] - out[0][0]))
                best2 = max(best2, abs(out[1][1] - out[0][1]))
        assert abs(best1 - r["round1"] / r["scale"]) <= 1e-12
        assert abs(best2 - r["round2"] / r["scale"]) <= 1e-12


def test_ties_fast_count_equals_definition():
    g = np.random.default_rng(7)
    for n in (2, 3, 4, 7, 30, 129):
        for _ in range(10):
            X = g.integers(0, 3, size=(n, 3)).astype(float)
            y = g.integers(0, 2, size=n).astype(float)
            fast = KendallColumns(X).d2(y)
            brute = [discordance2_brute(X[:, j], y) for j in range(3)]
            assert fast.tolist() == brute  # integer counts: exact


def _data(n=300, d=12, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, d))
    y = (X[:, 0] - X[:, 1] + 0.5 * g.normal(size=n) > 0).astype(int)
    return X, y, np.tile([-6.0, 6.0], (d, 1))


def test_spend_is_the_declared_composition():
    X, y, b = _data()
    p = _kendall_pipeline(b, k=4, epsilon=2.0, delta=1e-5, share=0.25, random_state=1)
    declared = [to_relation(p[1].expected_spend(X.shape[1]), "substitute"),
                p[2].expected_spend(4)]
    assert declared[0].epsilon == pytest.approx(0.5, rel=1e-12)  # 2 x (0.25 x 2 / 2)
    acc = BudgetAccountant(2.0, 1e-5, relation="substitute")
    charged_fit(acc, p, X, y)
    assert [c.charged.epsilon for c in acc.ledger] == pytest.approx(
        [s.epsilon for s in declared], rel=1e-12)
    assert [c.charged.delta for c in acc.ledger] == pytest.approx(
        [s.delta for s in declared], rel=1e-12, abs=0)
    total = compose(declared)
    assert acc.spent.epsilon == pytest.approx(total.epsilon, rel=1e-12)
    assert acc.spent.epsilon == pytest.approx(2.0, rel=1e-12)
    assert acc.spent.delta <= 1e-5


@pytest.mark.parametrize("bad", [dict(delta=2.0), dict(epsilon=-1.0), dict(bounds=(1.0, -1.0)),
                                 dict(relation="add/remove"), dict(epsilon=float("nan"))])
def test_bad_last_step_refused_before_any_charge(bad):
    X, y, b = _data()
    acc = BudgetAccountant(2.0, 1e-5, relation="substitute")
    p = _kendall_pipeline(b, k=4, epsilon=2.0, share=0.25)
    p[2].set_params(**bad)
    with pytest.raises((ValueError, TypeError)):
        charged_fit(acc, p, X, y)
    assert acc.ledger == [] and not hasattr(p[1], "selected_")


def test_overspend_refused_before_any_charge():
    X, y, b = _data()
    acc = BudgetAccountant(1.0, 1e-5, relation="substitute")
    with pytest.raises(Exception, match="budget|exceed"):
        charged_fit(acc, _kendall_pipeline(b, k=4, epsilon=1.5, share=0.25), X, y)
    assert acc.ledger == []


def test_unseeded_fits_differ():
    X, y, b = _data()
    fits = [_kendall_pipeline(b, k=4, epsilon=1.0, share=0.25).fit(X, y) for _ in range(2)]
    f = [p.decision_function(X[:20]) for p in fits]
    assert not np.array_equal(f[0], f[1])
    seeded = [_kendall_pipeline(b, k=4, epsilon=1.0, random_state=5).fit(X, y) for _ in range(2)]
    assert np.array_equal(seeded[0].decision_function(X[:20]),
                          seeded[1].decision_function(X[:20]))  # same seed, same path: same bits


def test_width_known_only_for_a_declared_one_to_one_function():
    "Without feature_names_out='one-to-one' the next step's width is unknown: refused, 0 lines."
    X, y, b = _data()
    p = _kendall_pipeline(b, k=4, epsilon=1.0)
    p[0].set_params(feature_names_out=None)
    acc = BudgetAccountant(1.0, 1e-5, relation="substitute")
    with pytest.raises(TypeError, match="cannot be known"):
        charged_fit(acc, p, X, y)
    assert acc.ledger == []


@pytest.mark.parametrize("bad", ["nan", "constant column"])
def test_bad_data_behind_the_stateless_step_refused_before_any_charge(bad):
    "The selector's data checks run on the scaled data before the charge (step 1 is stateless)."
    X, y, b = _data()
    if bad == "nan":
        X[5, 3] = np.nan
    else:
        X[:, 3] = 9.0  # above the schema: clipped to a constant column
    acc = BudgetAccountant(2.0, 1e-5, relation="substitute")
    p = _kendall_pipeline(b, k=4, epsilon=2.0)
    with pytest.raises(ValueError):
        charged_fit(acc, p, X, y)
    assert acc.ledger == [] and not hasattr(p[1], "selected_")


def test_one_to_one_declaration_that_drops_a_column_refused_before_any_charge():
    X, y, b = _data()
    p = _kendall_pipeline(b, k=4, epsilon=1.0)
    p[0].set_params(func=lambda A, lo, hi: A[:, 1:])  # declared one-to-one, returns d - 1
    acc = BudgetAccountant(1.0, 1e-5, relation="substitute")
    with pytest.raises(ValueError, match="planned to pass on 12 columns but returns 11"):
        charged_fit(acc, p, X, y)
    assert acc.ledger == []
