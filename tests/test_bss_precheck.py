"""Issue 25 review: the certification's precheck fails a hopeless release at once (p = 100, n = 300,
the issue's case) and keeps quiet where the certification itself succeeds."""
import time

import numpy as np
import pytest

from dplit.bss import enumerate_supports
from dplit.bss_mip import MIPSearch, SolverError, bss_data


def test_small_n_fails_fast_with_advice():
    # The first search in a process loads numba's cached kernels and the solver modules: 5-10 s on
    # this 2-core machine, measured, which once made this check depend on whether another test file
    # had run a search in the same pytest worker before (xdist's file scheduling). A search on other
    # data of the same shape pays that once, untimed; the timed search below then measures what the
    # issue's budget is about, the precheck itself (0.1-0.3 s measured under load, so 5 s still fails
    # a precheck that is slow, or one that runs after the outer approximation).
    Xw, yw, _ = bss_data(300, 100, 5, rng=1)
    with pytest.raises(SolverError, match="max_candidates"):
        MIPSearch().top_r(Xw, yw, 5, 2 + 95 * 5, r=1.1)
    X, y, _ = bss_data(300, 100, 5, rng=0)
    m, t = MIPSearch(), time.perf_counter()
    with pytest.raises(SolverError, match="max_candidates"):
        m.top_r(X, y, 5, 2 + 95 * 5, r=1.1)
    assert time.perf_counter() - t < 5.0          # the budget for this case
    assert "precheck_s" in m.last_stats_ and "oa_s" not in m.last_stats_   # before the OA


def test_precheck_passes_where_certification_succeeds():
    """With max_candidates large enough for the certification, the release equals enumeration
    (the precheck, which runs first, did not refuse it)."""
    X, y, _ = bss_data(200, 16, 4, rng=3)
    E, _ = enumerate_supports(X, y, 4, r=1.1)
    m = MIPSearch()
    S, _ = m.top_r(X, y, 4, 30, r=1.1)
    assert "precheck_s" in m.last_stats_
    assert np.array_equal(S, E[:30])
