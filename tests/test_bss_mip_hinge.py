"HingeOASearch: bad input raises errors that name the parameter; the backend plugs into top_r_select."
import numpy as np
import pytest

from dplit.bss import ExhaustiveSearch, top_r_select
from dplit.bss_mip import HingeCuts, HingeOASearch, hinge_data


@pytest.fixture(scope="module")
def data():
    X, y, _ = hinge_data(40, 7, 2, rng=0)
    return X, y


@pytest.mark.parametrize("kw, name", [(dict(tol=0), "tol"), (dict(time_limit=-1), "time_limit")])
def test_constructor(kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        HingeOASearch(**kw)


def test_inputs(data):
    X, y = data
    m = HingeOASearch()
    with pytest.raises(ValueError, match="loss"):
        m.top_r(X, y, 2, 2, r=1.1, loss="squared")
    with pytest.raises(ValueError, match="y"):
        m.top_r(X, y * 0.5, 2, 2, r=1.1)
    with pytest.raises(ValueError, match="R"):
        m.top_r(X, y, 2, 0, r=1.1)
    with pytest.raises(ValueError, match="rule"):
        m.best_per_bucket(X, y, 2, (0, 1), r=1.1, rule="most")
    with pytest.raises(ValueError, match="center"):
        m.best_per_bucket(X, y, 2, (0, 9), r=1.1)


def test_cut_is_below_scores(data):
    X, y = data
    from dplit.bss import enumerate_supports
    E, ve = enumerate_supports(X, y, 2, r=1.1, loss="hinge")
    v, g, sc = HingeCuts(X, y, 1.1).cut(tuple(E[3]))
    Z = np.zeros((len(E), X.shape[1]))
    Z[np.arange(len(E))[:, None], E] = 1
    assert np.all(v + (Z - Z[3]) @ g <= ve + 1e-9)
    assert abs(sc - ve[3]) <= 1e-9


def test_selector_same_release(data):
    X, y = data
    kw = dict(r=1.1, b_x=0.5, loss="hinge", R=4)
    a = top_r_select(X, y, 2, 1.0, search=HingeOASearch(), rng=5, **kw).value
    b = top_r_select(X, y, 2, 1.0, search=ExhaustiveSearch(), rng=5, **kw).value
    assert a == b
