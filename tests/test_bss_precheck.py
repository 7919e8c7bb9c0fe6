"""Issue 25 review: the certification's precheck fails a hopeless release at once (p = 100, n = 300,
the issue's case) and keeps quiet where the certification itself succeeds."""
import time

import numpy as np
import pytest

from dplit.bss import enumerate_supports
from dplit.bss_mip import MIPSearch, SolverError, bss_data


def test_small_n_fails_fast_with_advice():
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
