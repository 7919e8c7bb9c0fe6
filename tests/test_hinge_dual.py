"""The dual listing behind HingeOASearch's buckets and top-R (chapter 51): `_subsets_at_least` lists exactly the
k-subsets above a threshold (brute force), a bad `max_enumerate` is refused before any search or draw, and the
backend's dual points leave with its caches."""
import pickle
from itertools import combinations

import numpy as np
import pytest

from dplit.bss import mistakes_select
from dplit.bss_mip import HingeOASearch, _subsets_at_least, hinge_data


def test_subsets_at_least_equals_brute_force():
    g = np.random.default_rng(0)
    for _ in range(300):
        m = int(g.integers(1, 12))
        k = int(g.integers(1, min(m, 5) + 1))
        wo = np.sort(g.exponential(size=m))[::-1]
        need = float(g.uniform(-1, 4))
        ref = [c for c in combinations(range(m), k) if wo[list(c)].sum() >= need]
        assert [tuple(r) for r in _subsets_at_least(wo, k, need, 10**9).tolist()] == ref
        if ref:                                     # one more than the cap: refused
            assert _subsets_at_least(wo, k, need, len(ref) - 1) is None


@pytest.mark.parametrize("bad", [None, 1.5, -2, "all"])
def test_bad_max_enumerate_refused_before_the_draw(bad):
    X, y, _ = hinge_data(80, 8, 2, rng=0)
    m = HingeOASearch()
    m.max_enumerate = bad
    g = np.random.default_rng(1)
    state = g.bit_generator.state
    with pytest.raises((TypeError, ValueError), match="max_enumerate"):
        mistakes_select(X, y, 2, 1.0, loss="hinge", search=m, rng=g)
    assert g.bit_generator.state == state


def test_dual_points_leave_with_the_caches():
    X, y, _ = hinge_data(120, 9, 3, b=1.0, rng=2)
    m = HingeOASearch()
    S, _ = m.top_r(X, y, 3, 1, r=1.1)
    m.bucket_bounds(X, y, 3, S[0], r=1.1)
    cuts = m._last[1]
    assert len(cuts._dual_stack[0]) > 0             # the dual points were computed
    assert pickle.loads(pickle.dumps(m))._last == (None, None)     # a copy carries no cuts
    m.forget()
    assert m._last == (None, None)
