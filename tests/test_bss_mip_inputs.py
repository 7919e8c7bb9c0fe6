"Bad input and solver failures of dplit.bss_mip raise errors that name the problem."
import numpy as np
import pytest

from dplit.bss_mip import (CutMaster, MIPSearch, PerspectiveCuts, SolverError, bss_data,
                           mip9_kth_best, outer_approximation)


@pytest.fixture(scope="module")
def data():
    X, y, _ = bss_data(60, 12, 3, snr=1.0, rng=0)
    return X, y


@pytest.mark.parametrize("kw, name", [(dict(tol=0), "tol"), (dict(oa_tol=-1), "oa_tol"),
                                      (dict(oa2_time=np.nan), "oa2_time"),
                                      (dict(time_limit=0), "time_limit"),
                                      (dict(max_candidates=0), "max_candidates"),
                                      (dict(warm_start="abess"), "warm_start")])
def test_constructor(kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        MIPSearch(**kw)


def test_top_r_inputs(data):
    X, y = data
    m = MIPSearch()
    with pytest.raises(ValueError, match="R"):
        m.top_r(X, y, 3, 0, r=1.1)
    with pytest.raises(ValueError, match="R"):
        m.top_r(X, y, 3, 221, r=1.1)                   # C(12, 3) = 220
    with pytest.raises(ValueError, match="s"):
        m.top_r(X, y, 12, 2, r=1.1)
    with pytest.raises(ValueError, match="r"):
        m.top_r(X, y, 3, 2, r=0.0)
    with pytest.raises(ValueError, match="loss"):
        m.top_r(X, np.sign(y), 3, 2, r=1.1, loss="hinge")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        m.top_r(Xn, y, 3, 2, r=1.1)
    with pytest.raises(ValueError, match="y"):
        m.top_r(X, y[:-1], 3, 2, r=1.1)
    with pytest.raises(ValueError, match="rule"):
        m.best_per_bucket(X, y, 3, (0, 1, 2), r=1.1, rule="most")
    with pytest.raises(ValueError, match="center"):
        m.best_per_bucket(X, y, 3, (0, 1), r=1.1)


def test_bss_data_inputs():
    with pytest.raises(ValueError, match="s"):
        bss_data(10, 5, 4)
    with pytest.raises(ValueError, match="snr"):
        bss_data(10, 5, 2, snr=0.0)


def test_timeouts_raise(data):
    "Out of time: an error (for the OA centre: harmless), never a silently worse support."
    X, y = data
    from dplit.bss import enumerate_supports
    m = MIPSearch(time_limit=1e-9)                 # OA out of time: its incumbent is the centre
    want = enumerate_supports(X, y, 3, r=1.1)[0][:5]
    np.testing.assert_array_equal(m.top_r(X, y, 3, 5, r=1.1)[0], want)
    assert "oa_failed" in m.last_stats_
    with pytest.raises(SolverError):
        MIPSearch(max_candidates=1).top_r(X, y, 3, 40, r=1.1)
    cuts = PerspectiveCuts(X, y, 1.1)
    with pytest.raises(SolverError):
        outer_approximation(cuts, CutMaster(12, 3), tol=1e-9, time_limit=0.0)


def test_mip9_timeout(data):
    X, y = data
    with pytest.raises(SolverError):
        mip9_kth_best(X, y, 3, r=1.1, time_limit=1e-3)
