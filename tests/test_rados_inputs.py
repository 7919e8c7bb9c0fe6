"""Bad input to the public functions of dplit.rados raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.rados import (g_matrix, log_rado_exp_risk, logistic_loss, rado_log_risk, rados, random_rados, recover_edges,
                         sample_signatures, support_matrix)

rng = np.random.default_rng(0)
X = rng.normal(size=(8, 3))
Y = np.where(rng.random(8) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("y", [np.arange(8) % 3, np.full(8, 2.0), np.r_[Y[:-1], np.nan]])
def test_labels_not_binary(y):
    with pytest.raises(ValueError, match="y"):
        random_rados(X, y, 3)


def test_bad_signatures():
    with pytest.raises(ValueError, match="sigma"):
        rados(X, Y, np.zeros((2, 8)))
    with pytest.raises(ValueError, match="sigma"):
        rados(X, Y, np.ones((2, 7)))


@pytest.mark.parametrize("n", [0, -1])
def test_bad_n(n):
    with pytest.raises(ValueError, match="n"):
        random_rados(X, Y, n)
    with pytest.raises(ValueError, match="n"):
        sample_signatures(8, n)


def test_bad_X_and_theta():
    Z = X.copy(); Z[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        random_rados(Z, Y, 3)
    with pytest.raises(ValueError, match="theta"):
        logistic_loss(X, Y, np.ones(2))
    with pytest.raises(ValueError, match="theta"):
        log_rado_exp_risk(np.ones((3, 3)), [1.0, np.inf, 0.0])
    with pytest.raises(ValueError, match="m"):
        rado_log_risk(np.ones((3, 3)), np.ones(3), 0)


def test_bad_lemma9_inputs():
    with pytest.raises(ValueError, match="m"):
        g_matrix(0)
    with pytest.raises(ValueError, match="U_idx"):
        support_matrix([0, 16], 4)
    with pytest.raises(ValueError, match="not recoverable"):
        recover_edges(np.ones((2, 2)), [1, 2], 4)
    with pytest.raises(ValueError, match="Pi"):
        recover_edges(np.ones((2, 3)), [1, 2, 4, 8], 4)
