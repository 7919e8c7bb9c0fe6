"""Bad input to every public function of dplit.lipschitz raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit import lipschitz as L

X = np.array([3.0, 1.0, 2.0, 0.0, 5.0])

SAMPLERS = [L.lipschitz_top_k, L.lipschitz_top_k_naive, L.lipschitz_top_k_dense, L.lipschitz_top_k_python]


@pytest.mark.parametrize("f", SAMPLERS + [L.lipschitz_subset_probs])
@pytest.mark.parametrize("kw,name", [
    (dict(k=5), "k"), (dict(k=0), "k"), (dict(k=7), "k"), (dict(k=2.0), "k"),
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=np.nan), "epsilon"), (dict(epsilon=np.inf), "epsilon"),
    (dict(gamma=1.0), "gamma"), (dict(gamma=-0.1), "gamma"), (dict(gamma=np.nan), "gamma"),
    (dict(sensitivity=0.0), "sensitivity"), (dict(sensitivity=-2.0), "sensitivity"),
    (dict(scores=[1.0, np.nan, 2.0, 3.0, 4.0]), "scores"), (dict(scores=[1.0, np.inf, 2.0, 3.0, 4.0]), "scores"),
    (dict(scores=np.ones((2, 3))), "scores"), (dict(scores=[1.0]), "scores"), (dict(scores=["a", "b", "c"]), "scores"),
])
def test_sampler_bad_input(f, kw, name):
    args = dict(scores=X, k=2, epsilon=1.0, gamma=0.5, sensitivity=1.0) | kw
    with pytest.raises((ValueError, TypeError), match=name):
        f(**args)


@pytest.mark.parametrize("f", [L.lipschitz_top_k, L.lipschitz_top_k_naive, L.lipschitz_top_k_dense])
def test_bad_size_and_rng(f):
    with pytest.raises(ValueError, match="size"):
        f(X, 2, 1.0, size=0)
    with pytest.raises(TypeError, match="rng"):
        f(X, 2, 1.0, rng="seed")


def test_loss_and_class_bad_input():
    with pytest.raises(ValueError, match="gamma"):
        L.canonical_loss(np.array([0, 1]), X, gamma=1.0)
    with pytest.raises(ValueError, match="subset"):
        L.canonical_loss(np.array([0, 0]), X)
    with pytest.raises(ValueError, match="subset"):
        L.canonical_loss(np.array([0, 9]), X)
    with pytest.raises(TypeError, match="subset"):
        L.canonical_loss(np.array([0.5, 1.0]), X)
    with pytest.raises(ValueError, match="len\\(subset\\)"):
        L.canonical_loss(np.arange(5), X)
    with pytest.raises(ValueError, match="x"):
        L.loss_by_lp(np.array([0, 1]), [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="x"):
        L.class_of(np.array([0]), [np.inf, 1.0])
    with pytest.raises(ValueError, match="k"):
        L.class_log_sizes(5, 5)
    with pytest.raises(ValueError, match="d"):
        L.class_log_sizes(1, 1)


def test_bound_and_noise_helpers_bad_input():
    with pytest.raises(ValueError, match="k"):
        L.recovery_bound(5, 5, 1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="xi"):
        L.recovery_bound(5, 2, -1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="gamma"):
        L.recovery_bound(5, 2, 1.0, 1.5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        L.recovery_prob_two_level(5, 2, 1.0, 0.5, 0.0)
    with pytest.raises(ValueError, match="n"):
        L.harmonic_noise_mc(3.0, 0)
    with pytest.raises(ValueError, match="arithmetic"):
        L.lipschitz_top_k_python(X, 2, 1.0, arithmetic="decimal")
    with pytest.raises(ValueError, match="member"):
        L.lipschitz_top_k_dense(X, 2, 1.0, member="worst")


def test_valid_output_shapes():
    r = L.lipschitz_top_k(X, 2, 1.0, rng=0)
    assert r.value.shape == (2,) and r.spend.epsilon == 1.0
    assert L.lipschitz_top_k(X, 2, 1.0, rng=0, size=4).value.shape == (4, 2)
    assert L.lipschitz_top_k_python(X, 2, 1.0, rng=0).shape == (2,)


@pytest.mark.parametrize("f", [L.lipschitz_top_k, L.lipschitz_top_k_dense])
def test_overflowing_utilities_refused(f):
    "eps/2 * score beyond the float range would give inf - inf = nan utilities and a deterministic (non-private) draw."
    with pytest.raises(ValueError, match="scores"):
        f([1e308] * 4, 2, 10.0, rng=0)
    with pytest.raises(ValueError, match="scores"):
        f([1e200, 0.0, 1.0], 1, 1.0, sensitivity=1e-120, rng=0)


def test_large_equal_scores_stay_uniform():
    "Just inside the guard: equal scores still give the uniform distribution over the 6 two-subsets of 4."
    v = L.lipschitz_top_k([1e299] * 4, 2, 1.0, rng=0, size=6000).value
    assert len(np.unique(v, axis=0)) == 6


def test_helper_inputs():
    with pytest.raises(ValueError, match="gamma"):
        L.subset_losses([1.0, 2.0, 3.0], 1, 2.0)
    with pytest.raises(ValueError, match="k"):
        L.subset_losses([1.0, 2.0, 3.0], 5)
    with pytest.raises(ValueError, match="subset"):
        L.class_of(np.array([0, 1, 2]), [1.0, 2.0, 3.0])
    for bad in (np.nan, -1.0, np.inf):
        with pytest.raises(ValueError, match="log_m"):
            L.harmonic_number(bad)
