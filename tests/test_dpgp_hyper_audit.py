"""Privacy audit of 1-D COINPRESS (dplit.dpgp_hyper.coinpress_mean; Honkela (2021), Sec 4.1), the
validation-score release of Honkela (2021), Alg 2, under the SUBSTITUTE relation (n public).

Worst-case pair of its proof: n - 1 common values at the centre and one value at C - R in D0, C + R in D1, so that at
every step the two values are clipped to opposite ends of the current interval and the clipped means differ by the
step's full sensitivity 2 r_t / n (n = 1000 keeps the noisy centres within ~0.01 of C, so both values are clipped at
every step). Claim: (eps, delta) with rho = zcdp_rho(eps, delta) (Eq 19), 12 steps, 3/4 of rho
in the last. Statistic: the released mean (threshold events). The mutant halves every step's noise (rho x 4); its last
step alone is (5.7, 1e-2)-DP at best, so the audit at the claimed (4, 1e-2) must catch it. 60,000 runs per side."""
import numpy as np

from dplit.audit import audit
from dplit.dpgp_hyper import coinpress_mean, zcdp_rho

EPS, DELTA, N, C, R = 4.0, 1e-2, 1000, 0.0, 1.0
D0, D1 = np.r_[np.zeros(N - 1), C - R], np.r_[np.zeros(N - 1), C + R]


def _mech(rho):
    return lambda x, rng: coinpress_mean(x, C, R, rho, rng=rng).mean


def test_coinpress_passes_claim():
    res = audit(_mech(zcdp_rho(EPS, DELTA)), D0, D1, epsilon=EPS, delta=DELTA, n_trials=60_000, rng=3)
    assert res.passed, str(res)


def test_coinpress_half_noise_caught():
    res = audit(_mech(4 * zcdp_rho(EPS, DELTA)), D0, D1, epsilon=EPS, delta=DELTA, n_trials=60_000, rng=4)
    assert not res.passed, str(res)
