"""The sixth rule's Jacobian share (chapter 19): C = 4 (exp(jac_share * epsilon) - 1) overflows a
float from jac_share * epsilon of about 709.1 (and the trade-off's C^2 from epsilon of about
707); such a budget is refused with a ValueError that
names epsilon, before the charge and before any draw (it was a bare OverflowError)."""
import math
import warnings

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant
from dplit.recipes import JAC_SHARE, RecipeClassifier, logistic_choice

from _rules_registry import DrawRecorder

EDGE = math.log(math.floor(1.7976931348623157e308 / 4))  # largest exponent C survives, ~709.1


@pytest.mark.parametrize("kw", [{}, {"coef_prior": 1.0}])
def test_overflowing_budget_is_a_value_error(kw):
    share = JAC_SHARE if not kw else 1.0  # the trade-off's C^2 is about e^epsilon
    with pytest.raises(ValueError, match="epsilon"):
        logistic_choice(EDGE / share * 1.01, 1e-5, 5, **kw)
    c = logistic_choice(690 / share, 1e-5, 5, **kw)["C"]  # below the guard: a finite C
    assert math.isfinite(c) and c > 0


def test_classifier_refuses_before_charge_and_draw(monkeypatch):
    g = np.random.default_rng(0)
    X, y = g.uniform(-1, 1, (200, 3)), g.integers(0, 2, 200)
    rec = DrawRecorder(monkeypatch)
    acc = BudgetAccountant(1e5, 1e-3, relation="substitute", tight=False)
    with warnings.catch_warnings(), pytest.raises(ValueError, match="epsilon"):
        warnings.simplefilter("ignore")
        RecipeClassifier(epsilon=1e4, bounds=(-2, 2), accountant=acc, random_state=0).fit(X, y)
    assert rec.untouched() and acc.spent.epsilon == 0
