"""The DP-GP audit pair (Honkela (2021), Eq 5 and Lemma 5, SUBSTITUTE relation) attains Delta; the audit itself is
registered in nbs/40_dpgp.ipynb ("dpgp_release") and run by tests/test_audit_registry.py.

Worst-case pair: common rows plus one entry (k, y) vs (k', y') with |k| = |k'| = R_k, y = -y' = R_y and
<k, k'> = R_y^2 / (2 c^2): the rescaled release [A; c B-hat] moves by exactly Delta (Honkela (2021), Eq 6)."""
import numpy as np
import pytest

from dplit.dpgp import (DPGPNoise, _adversarial_pair, _ball, dpgp_noise_scales, eq_kernel, kernel_norm_bound,
                        release_statistics, sufficient_statistics, vech_scaled)


def _case(epsilon, delta, d=3, n_common=5, c=1.0, seed=0):
    g = np.random.default_rng(seed)
    R_k, R_y = 1.0, 1.0
    k, y, k2, y2 = _adversarial_pair(R_k, R_y, c, d)
    CK, cy = _ball(g, n_common, d, R_k), g.uniform(-R_y, R_y, n_common)
    D0, D1 = (np.vstack([CK, k]), np.r_[cy, y]), (np.vstack([CK, k2]), np.r_[cy, y2])
    noise = dpgp_noise_scales(R_k, R_y, c, epsilon, delta)
    return D0, D1, noise, c, d


def _mechs(D0, D1, noise, c, d):
    scale = np.r_[np.ones(d), c * np.ones(d * (d + 1) // 2)]
    def mean(D):
        A, B = sufficient_statistics(*D)
        return np.r_[A, vech_scaled(B)] * scale
    u = mean(D1) - mean(D0)
    dist = np.linalg.norm(u)
    u = u / dist
    stat = lambda out: (out * scale - mean(D0)) @ u
    half = DPGPNoise(noise.sigma_a / 2, noise.sigma_b / 2, noise.sensitivity, noise.R_k, noise.R_y, noise.c,
                     noise.epsilon, noise.delta)
    mech = lambda D, g, n: stat(release_statistics(*D, noise, rng=g, size=n).value)
    mut = lambda D, g, n: stat(release_statistics(*D, half, rng=g, size=n).value)
    return mech, mut, dist


@pytest.mark.parametrize("eps,c", [(0.5, 1.0), (1.0, 1.0), (2.0, 1.0), (1.0, 0.8)])
def test_worst_pair_moves_by_delta(eps, c):
    D0, D1, noise, c, d = _case(eps, 1e-4, c=c)
    _, _, dist = _mechs(D0, D1, noise, c, d)
    assert abs(dist - noise.sensitivity) < 1e-9 * noise.sensitivity


def test_real_inputs_pair_stays_within_delta():
    "A substitute pair of real 1-D inputs (EQ kernel, |Z| = 9 on [-3, 3], R_k from Eq 7) moves the release by < Delta."
    Z = np.linspace(-3, 3, 9)
    xs = np.linspace(-5, 5, 201)
    K = eq_kernel(xs, Z)
    noise = dpgp_noise_scales(kernel_norm_bound(Z), 1.0, 1.0, 1.0, 1e-4)
    A = np.c_[K, np.zeros((len(xs), 0))]
    tb = np.array([vech_scaled(np.outer(k, k)) for k in K])
    i, j = np.meshgrid(np.arange(len(xs)), np.arange(len(xs)), indexing="ij")
    diff = np.sqrt(((K[i] + K[j]) ** 2).sum(-1) + ((tb[i] - tb[j]) ** 2).sum(-1))   # y = 1, y' = -1
    assert diff.max() <= noise.sensitivity
