"""The lazy exact draw of the mistakes method: equal to the exact Gumbel-max, mutants caught, bad
input refused."""
import numpy as np
import pytest

import dplit.bss as B


def _instance(seed=0, K=5):
    g = np.random.default_rng(seed)
    z = np.sort(g.normal(0, 2, K))[::-1]
    lo = z - g.uniform(0, 2, K)
    hi = z + g.uniform(0, 2, K)
    lo[0] = hi[0] = z[0]
    return z, lo, hi, g.gumbel(size=(4000, K))


def _winners_only(z_lo, z_hi, G, refine):
    "Mutant: refines only the current winners, never a rival that could overtake."
    lo, hi = np.array(z_lo, float), np.array(z_hi, float)
    rows = np.arange(len(G))
    while True:
        a, b = lo[None] + G, hi[None] + G
        k = np.argmax(a, axis=1)
        best = a[rows, k]
        b[rows, k] = -np.inf
        und = b.max(1) >= best
        need = [j for j in np.unique(k[und]) if lo[j] < hi[j]]
        if not need:
            return k
        for j in need:
            lo[j] = hi[j] = refine(int(j))


@pytest.mark.parametrize("seed", range(5))
def test_lazy_argmax_equals_exact_row_by_row(seed):
    z, lo, hi, G = _instance(seed)
    exact = np.argmax(z + G, axis=1)
    calls = []
    batch = B.lazy_bucket_argmax(lo, hi, G, lambda k: calls.append(k) or z[k])
    assert np.array_equal(batch, exact)
    assert len(calls) == len(set(calls))                 # each bucket refined at most once
    single = [B.lazy_bucket_argmax(lo, hi, G[i:i + 1], lambda k: z[k])[0] for i in range(500)]
    assert np.array_equal(single, exact[:500])


def test_winners_only_mutant_is_caught():
    z, lo, hi, G = _instance(1)
    exact = np.argmax(z + G, axis=1)
    bad = [_winners_only(lo, hi, G[i:i + 1], lambda k: z[k])[0] for i in range(2000)]
    assert np.sum(np.array(bad) != exact[:2000]) > 0


def test_exact_bounds_never_refine():
    z, _, _, G = _instance(2)
    out = B.lazy_bucket_argmax(z, z, G, lambda k: pytest.fail("refined exact bounds"))
    assert np.array_equal(out, np.argmax(z + G, axis=1))


def test_bucket_gap_refines_only_what_it_must():
    up = np.array([10.0, 20.0, 40.0, 60.0])
    lo = np.array([10.0, 20.0, 35.0, 15.0])              # bucket 3 could hold the minimum
    calls = []
    gap = B.bucket_gap(up, lo, lambda k: calls.append(k) or {3: 18.0}[k])
    assert gap == 8.0 and calls == [3]


def test_mistakes_sample_refuses_bad_bounds():
    c, S, v = (0, 1), np.array([[0, 1], [0, 2], [2, 3]]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="lower"):
        B.mistakes_sample(c, S, v, 6, 2, 1.0, 1.0, 0, lower=v + 1, refine=lambda k: v[k])
    with pytest.raises(ValueError, match="refine"):
        B.mistakes_sample(c, S, v, 6, 2, 1.0, 1.0, 0, lower=v - [0, 1, 1])
    with pytest.raises(ValueError, match="lower"):
        B.mistakes_sample(c, S, v, 6, 2, 1.0, 1.0, 0, lower=v[:2], refine=lambda k: v[k])
