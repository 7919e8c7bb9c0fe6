"""Review of the lazy mistakes draw and MIPSearch's bucket bounds: NaN / swapped bounds refused, the
k <= 2 far-bucket bound valid for exact_up_to < 2, the at-least combination, the cuts cache keyed
by shape, pickles without the Gram matrix, exactness on ties and infinite bounds, and the draws
unchanged from the sampler before the lazy draw (same rng consumption)."""
import pickle
import warnings

import numpy as np
import pytest

import dplit.bss as B
import dplit.bss_mip as M


def test_nan_or_swapped_bounds_are_refused():
    z, G = np.array([0.0, 1.0]), np.array([[0.0, 0.5]])
    with pytest.raises(ValueError, match="z_lo"):          # NaN z_hi used to decide the row
        B.lazy_bucket_argmax(np.array([0.0, -5.0]), np.array([0.0, np.nan]), G, lambda k: z[k])
    with pytest.raises(ValueError, match="z_lo"):
        B.lazy_bucket_argmax(np.array([0.0, 2.0]), np.array([0.0, 0.5]), G, lambda k: z[k])
    with pytest.raises(ValueError, match="lower"):         # NaN lower was never refined
        B.bucket_gap([1.0, 5.0, 3.0], [1.0, np.nan, 3.0], lambda k: {1: 2.0}[k])
    v = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="lower"):
        B.mistakes_sample((0, 1), np.array([[0, 1], [0, 2], [2, 3]]), v, 6, 2, 1.0, 1.0, 0,
                          lower=np.array([1.0, np.nan, 3.0]), refine=lambda k: v[k])


def test_lazy_argmax_exact_with_ties_infinite_bounds_and_few_buckets():
    g = np.random.default_rng(0)
    for it in range(3000):
        K, m = int(g.integers(1, 6)), int(g.choice([1, 3, 40]))
        if it % 2:                                          # integers: exact ties everywhere
            z = g.integers(-3, 4, K).astype(float)
            G = g.integers(-3, 4, (m, K)).astype(float)
            lo, hi = z - g.integers(0, 3, K), z + g.integers(0, 3, K)
        else:
            z, G = g.normal(0, 2, K), g.gumbel(size=(m, K))
            lo, hi = z - g.exponential(1, K), z + g.exponential(1, K)
        hi[g.random(K) < 0.2] = np.inf
        lo[g.random(K) < 0.1] = -np.inf
        got = B.lazy_bucket_argmax(lo, hi, G, lambda k: z[k])
        assert np.array_equal(got, np.argmax(z + G, axis=1))


def _old_mistakes_sample(center, bucket_scores, p, s, epsilon, delta, rng, size):
    "The sampler before the lazy draw (commit 8352961): Gumbel-max on the normalised log-law."
    g = np.random.default_rng(rng)
    lp = B.mistakes_log_bucket_probs(bucket_scores, p, s, epsilon, delta)
    ks = np.argmax(lp[None] + g.gumbel(size=(size, len(lp))), axis=1)
    return [tuple(x) for x in B._uniform_members(center, ks, p, g).tolist()]


def test_draws_unchanged_from_the_sampler_before_the_lazy_draw():
    g = np.random.default_rng(3)
    n, p, s = 120, 10, 3
    X = np.clip(g.normal(0, 0.3, (n, p)), -0.5, 0.5)
    y = np.clip(X[:, :s].sum(1) * 0.5 + g.normal(0, 0.2, n), -0.5, 0.5)
    S, v = B.enumerate_supports(X, y, s, r=1.1)
    Bk, vb = B.ExhaustiveSearch().best_per_bucket(X, y, s, S[0], r=1.1)
    for seed in range(10):
        new = B.mistakes_sample(S[0], Bk, vb, p, s, 3.0, 1.0, seed, size=300)
        assert new == _old_mistakes_sample(S[0], vb, p, s, 3.0, 1.0, seed, 300)


def _suppressor_data():
    "Columns 0 and 2 explain y together (moderate coefficients); (0, 1) fits better but needs |beta| ~ 30."
    g = np.random.default_rng(1)
    z = [g.standard_normal(60) * 0.1 for _ in range(9)]
    X = np.column_stack([z[0], -z[0] + 0.01 * z[1], -z[0] + 0.3 * z[1] + 0.03 * z[7], z[3], z[4],
                         z[5], z[6]])
    return X, 0.3 * z[1] + 0.02 * z[8]


@pytest.mark.parametrize("exact_up_to", [0, 1, 2])
def test_far_bucket_bound_valid_below_k3(exact_up_to):
    """exact_up_to < 2 sends k = 2 to the far-bucket bound; the k = 2 block is a pair matrix, which
    the Gershgorin code summed row-wise into a bound above the bucket's minimum."""
    X, y = _suppressor_data()
    c = np.array([5, 6])
    _, ref = B.ExhaustiveSearch().best_per_bucket(X, y, 2, c, r=5.0)
    S, up, lo = M.MIPSearch(oa2_time=0.2).bucket_bounds(X, y, 2, c, r=5.0, exact_up_to=exact_up_to)
    assert np.all(lo <= ref + 1e-12) and np.all(up >= ref - 1e-12)


def test_at_least_without_the_combination_is_caught():
    X, y, _ = M.bss_data(80, 12, 4, snr=1.0, rng=0)
    E, ve = B.enumerate_supports(X, y, 4, r=1.1)
    m = M.MIPSearch(oa2_time=0.2)
    assert M._bounds_contain(m, X, y, 4, E[7], "at_least", E, ve)
    assert not M._bounds_contain(m, X, y, 4, E[7], "at_least", E, ve, no_at_least=True)


def test_cuts_cache_keyed_by_shape():
    g = np.random.default_rng(0)
    flat = g.uniform(-0.5, 0.5, 12)
    X1, y1 = flat[:10].reshape(2, 5), flat[10:]            # the same bytes, another problem
    X2, y2 = flat[:9].reshape(3, 3), flat[9:]
    m = M.MIPSearch()
    assert m._cuts(X1, y1, 1.1).G.shape == (5, 5)
    assert m._cuts(X2, y2, 1.1).G.shape == (3, 3)
    assert m._cuts(X2, y2, 1.1) is m._cuts(X2, y2, 1.1)     # the same data: kept
    assert m._cuts(X2, y2, 1.2) is not m._cuts(X2, y2, 1.1)


def test_pickle_and_copy_leave_the_gram_matrix_behind():
    import copy
    X, y, _ = M.bss_data(80, 12, 3, rng=0)
    m = M.MIPSearch(oa2_time=0.2)
    S1, v1 = m.top_r(X, y, 3, 3, r=1.1)
    for m2 in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert not hasattr(m2, "_cache") and m2.tol == m.tol
        S2, v2 = m2.top_r(X, y, 3, 3, r=1.1)
        assert np.array_equal(S1, S2) and np.allclose(v1, v2, rtol=0, atol=1e-12)
    assert len(pickle.dumps(m)) < 10_000


def test_mip_mistakes_at_least_equals_exhaustive():
    X, y, _ = M.bss_data(150, 12, 4, snr=1.0, rng=2)
    kw = dict(epsilon=2.0, r=1.1, b_x=0.5, b_y=0.5, gap_check="warn", rule="at_least")
    m = M.MIPSearch(oa2_time=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = [B.mistakes_select(X, y, 4, search=m, rng=k, **kw).value for k in range(6)]
        b = [B.mistakes_select(X, y, 4, search=B.ExhaustiveSearch(), rng=k, **kw).value
             for k in range(6)]
    assert a == b


class _DuckSearch:
    "A backend with only the two methods `_check_search` requires (no SearchBackend subclass)."

    def __init__(self, shift_member=False):
        self.inner, self.shift_member = B.ExhaustiveSearch(), shift_member

    def top_r(self, *a, **k):
        return self.inner.top_r(*a, **k)

    def best_per_bucket(self, X, y, s, center, **k):
        S, v = self.inner.best_per_bucket(X, y, s, center, **k)
        if self.shift_member:                              # row 2 holds bucket 1's minimiser
            S, v = S.copy(), v.copy()
            S[2], v[2] = S[1], v[1]
        return S, v


def _small_data():
    g = np.random.default_rng(4)
    X = np.clip(g.normal(0, 0.3, (100, 9)), -0.5, 0.5)
    return X, np.clip(X[:, :3].sum(1) * 0.4 + g.normal(0, 0.2, 100), -0.5, 0.5)


def test_duck_typed_backend_still_works():
    X, y = _small_data()
    kw = dict(epsilon=2.0, r=1.1, b_x=0.5, b_y=0.5, gap_check="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = [B.mistakes_select(X, y, 3, search=_DuckSearch(), rng=k, **kw).value for k in range(5)]
        b = [B.mistakes_select(X, y, 3, rng=k, **kw).value for k in range(5)]
    assert a == b


def test_member_outside_its_bucket_is_refused():
    X, y = _small_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="outside its bucket"):
            B.mistakes_select(X, y, 3, 2.0, b_x=0.5, b_y=0.5, gap_check="warn",
                              search=_DuckSearch(shift_member=True), rng=0)


def _near_duplicate(p, delta=3e-8, c=0.5):
    """Column 4 = column 0 + delta e, with y = 0.3 (x_0 + x_5 + x_6) + c e: X'X's pseudo-inverse
    drops the e direction, which the ball still uses a little (|beta| <= r)."""
    g = np.random.default_rng(0)
    Q = np.linalg.qr(g.standard_normal((40, p + 1)))[0] * 0.6
    X, e = Q[:, :p].copy(), Q[:, p]
    X[:, 4] = X[:, 0] + delta * e
    return X, X[:, [0, 5, 6]] @ np.array([0.3, 0.3, 0.3]) + c * e


@pytest.mark.parametrize("p,center", [(8, [0, 1, 2, 3]),          # the all-columns fallback
                                      (10, [0, 4, 1, 2, 3])])     # rss(U) with U = {0, 4}
def test_far_bucket_lower_bound_valid_with_near_duplicate_columns(p, center):
    X, y = _near_duplicate(p)
    s, center = len(center), np.array(center)
    _, ref = B.ExhaustiveSearch().best_per_bucket(X, y, s, center, r=1.1)
    cuts = M.PerspectiveCuts(X, y, 1.1)
    for k in range(3, min(s, p - s) + 1):
        _, _, low = M._far_bucket_bounds(X, y, 1.1, cuts, center, k)
        assert low <= ref[k] + 1e-12 * float(y @ y)       # it exceeded the minimum by 3e-9 / 6e-9
