"""Bad input to the public functions of dplit.dprados raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.dprados import (check_boolean_feature, dp_feat_beta, dp_feat_experiment, dp_feat_guarantee, dp_feat_rados,
                           dp_feat_sample, dp_feat_window, fixed_support_masks, gaussian_edge_sigma, gaussian_edges,
                           gaussian_experiment, rejection_sample_rados, theorem8_run)

rng = np.random.default_rng(0)
M = 60
X = np.column_stack([np.where(rng.random(M) < 0.5, -1.0, 1.0), rng.normal(size=(M, 2))])
Y = np.where(rng.random(M) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("eps", [0, -1.0, np.nan, np.inf])
def test_bad_epsilon(eps):
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        dp_feat_rados(X, Y, 0, 5, eps)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        dp_feat_beta(eps)


def test_epsilon_not_a_number():
    with pytest.raises(TypeError, match="epsilon"):
        dp_feat_rados(X, Y, 0, 5, "1")


@pytest.mark.parametrize("n", [0, -3])
def test_bad_n(n):
    with pytest.raises(ValueError, match="n"):
        dp_feat_rados(X, Y, 0, n, 1.0)


def test_n_not_integer():
    with pytest.raises(TypeError, match="n"):
        dp_feat_rados(X, Y, 0, 2.5, 1.0)


def test_non_boolean_sensitive_feature():
    with pytest.raises(ValueError, match="j_star"):
        dp_feat_rados(X, Y, 1, 5, 1.0)            # a real-valued column
    Z = X.copy(); Z[:, 0] = (Z[:, 0] + 1) / 2     # {0, 1}: refused with a hint
    with pytest.raises(ValueError, match="2x - 1"):
        dp_feat_rados(Z, Y, 0, 5, 1.0)
    with pytest.raises(ValueError, match="j_star"):
        check_boolean_feature(X, 5)              # out of range
    with pytest.raises(TypeError, match="j_star"):
        dp_feat_window(X, Y, 0.0, 1.0)


@pytest.mark.parametrize("y", [np.arange(M) % 3, np.full(M, 2.0), np.r_[Y[:-1], np.nan]])
def test_bad_labels(y):
    with pytest.raises(ValueError, match="y"):
        dp_feat_rados(X, y, 0, 5, 1.0)


def test_bad_X():
    Z = X.copy(); Z[3, 1] = np.inf
    with pytest.raises(ValueError, match="X"):
        dp_feat_sample(Z, Y, 0, 5, 1.0)
    with pytest.raises(ValueError, match="same number of rows"):
        dp_feat_sample(X[:-1], Y, 0, 5, 1.0)


def test_epsilon_too_small_for_m():
    with pytest.raises(ValueError, match="too small"):
        dp_feat_rados(X, Y, 0, 5, 1e-3)          # one-point or empty window: the count would be revealed
    with pytest.raises(ValueError, match="too small"):
        dp_feat_guarantee(20, 0.5)


def test_vacuous_guarantee_refused():
    Z = np.column_stack([np.where(np.arange(12) % 2, 1.0, -1.0), np.arange(12.0)])
    with pytest.raises(ValueError, match="vacuous"):
        dp_feat_rados(Z, np.where(np.arange(12) % 3, 1.0, -1.0), 0, 10**6, 1.2)


def test_gaussian_and_support_inputs():
    with pytest.raises(ValueError, match="sigma"):
        gaussian_edges(X, Y, -1.0)
    with pytest.raises(ValueError, match="m_star"):
        fixed_support_masks(10, 11, 3)
    with pytest.raises(ValueError, match="n"):
        fixed_support_masks(10, 5, 0)
    with pytest.raises(ValueError, match="radius"):
        gaussian_edge_sigma(1.0, 1e-5, 0.0)
    with pytest.raises(ValueError, match="delta"):
        gaussian_edge_sigma(1.0, 1.5, 1.0)
    with pytest.raises(ValueError, match="kappa"):
        theorem8_run(X, Y, 1.0, 10, 5, 5, kappa=0.5)
    with pytest.raises(ValueError, match="sigmas"):
        gaussian_experiment(X, Y, sigmas=[-1.0], T=2, n_folds=2)
    with pytest.raises(ValueError, match="epsilon"):
        dp_feat_experiment(X, Y, 0, epsilons=[0.0], T=2, n_folds=2)


def test_release_records_spend():
    rel = dp_feat_rados(X, Y, 0, 4, 4.0, rng=1)
    g = dp_feat_guarantee(M, 4.0, n=4)
    assert rel.value.shape == (4,)                      # only the j* coordinates: the full rados are not DP
    np.testing.assert_array_equal(rel.value, dp_feat_sample(X, Y, 0, 4, 4.0, rng=1)[0][:, 0])
    assert rel.spend.relation == "substitute"
    assert abs(rel.spend.epsilon - 8.0) < 1e-12 and abs(rel.spend.delta - g["delta_n"]) < 1e-15
    np.testing.assert_array_equal(rel.value, dp_feat_rados(X, Y, 0, 4, 4.0, rng=1).value)


def test_rejection_sampler_inputs():
    E = Y[:, None] * X
    with pytest.raises(ValueError, match="j_star"):
        rejection_sample_rados(E, 3, 2, -1.0, 1.0)
    with pytest.raises(ValueError, match="low"):
        rejection_sample_rados(E, 0, 2, 5.0, 1.0)
    with pytest.raises(ValueError, match="low"):
        rejection_sample_rados(E, 0, 2, np.nan, 1.0)
