"""Bad input to the public functions of dplit.kendall raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.kendall import (KendallColumns, concentration_bound, discordance2, hill_climb_sensitivity, kendall_tau_hat,
                           kendall_tau_hat_columns, population_tau_gaussian, tight_pair)


@pytest.mark.parametrize("x,y,msg", [([1.0], [2.0], "x"), ([1.0, np.nan], [1.0, 2.0], "x"), ([1.0, 2.0], [np.inf, 1.0], "y"),
                                     ([[1.0, 2.0]], [1.0, 2.0], "x"), ([1.0, 2.0, 3.0], [1.0, 2.0], "same length")])
def test_tau_hat(x, y, msg):
    with pytest.raises(ValueError, match=msg):
        kendall_tau_hat(x, y)


def test_discordance_and_columns():
    with pytest.raises(ValueError, match="same length"):
        discordance2([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="X"):
        KendallColumns(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="X"):
        kendall_tau_hat_columns(np.ones(4), np.arange(4.0))
    kc = KendallColumns(np.random.default_rng(0).normal(size=(5, 3)))
    with pytest.raises(ValueError, match="v"):
        kc.d2(np.arange(4.0))
    with pytest.raises(ValueError, match="s"):
        kc.d2_col(3)
    with pytest.raises(ValueError, match="columns"):
        kc.d2(np.arange(5.0), columns=[5])


def test_lemma_helpers():
    with pytest.raises(ValueError, match="n"):
        tight_pair(1)
    with pytest.raises(ValueError, match="n"):
        hill_climb_sensitivity(1)
    with pytest.raises(ValueError, match="eta"):
        concentration_bound(10, 0.0)
    with pytest.raises(ValueError, match="sigma_e"):
        population_tau_gaussian([1.0], [1.0], -1.0, 0)
    with pytest.raises(ValueError, match="sigma"):
        population_tau_gaussian([1.0], [0.0], 1.0, 0)
    with pytest.raises(ValueError, match="j"):
        population_tau_gaussian([1.0], [1.0], 1.0, 1)
    with pytest.raises(ValueError, match="same length"):
        population_tau_gaussian([1.0, 2.0], [1.0], 1.0, 0)


def test_bound_and_model_helpers():
    from dplit.kendall import hoeffding_bound, population_tau_mc, population_tau_owen, tau_hat_exact
    with pytest.raises(ValueError, match="n"):
        hoeffding_bound(1, 0.1)
    with pytest.raises(ValueError, match="eta"):
        hoeffding_bound(10, 0.0)
    with pytest.raises(ValueError, match="n"):
        concentration_bound(-1, 0.1)
    with pytest.raises(ValueError, match="sigma"):
        population_tau_owen([1.0], [0.0], 1.0, 0)
    with pytest.raises(ValueError, match="beta"):
        population_tau_owen([np.nan], [1.0], 1.0, 0)
    with pytest.raises(ValueError, match="n_pairs"):
        population_tau_mc([1.0], [1.0], 1.0, 0, 0)
    with pytest.raises(ValueError, match="mu"):
        population_tau_mc([1.0], [1.0], 1.0, 0, 10, mu=[0.0, 1.0])
    with pytest.raises(ValueError, match="x"):
        tau_hat_exact([1.0], [1.0])
