"""Bad input to every public function and selector of dplit.dpkendall raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.dpkendall import DPKendallSelector, SubLassoSelector, audit_pair, dp_kendall, sub_lasso, theorem38_data

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 6))
y = X[:, 0] + rng.normal(size=40)


def _nan(a, i=3):
    a = np.array(a, float)
    a.flat[i] = np.nan
    return a


def _inf(a, i=3):
    a = np.array(a, float)
    a.flat[i] = np.inf
    return a


BAD = [
    (dict(X=_nan(X)), ValueError, "X"),
    (dict(X=_inf(X)), ValueError, "X"),
    (dict(y=_nan(y)), ValueError, "y"),
    (dict(y=_inf(y)), ValueError, "y"),
    (dict(k=6), ValueError, "k"),
    (dict(k=7), ValueError, "k"),
    (dict(k=0), ValueError, "k"),
    (dict(k=-1), ValueError, "k"),
    (dict(k=2.0), TypeError, "k"),
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(epsilon=np.nan), ValueError, "epsilon"),
    (dict(epsilon=np.inf), ValueError, "epsilon"),
    (dict(X=X[:1], y=y[:1]), ValueError, "rows"),
    (dict(y=y[:-1]), ValueError, "same number of rows"),
    (dict(X=X[:, 0]), ValueError, "X"),
    (dict(X=np.column_stack([X, np.ones(40)])), ValueError, "constant"),
]


def _call(fn, kw):
    args = dict(X=X, y=y, k=2, epsilon=1.0)
    args.update(kw)
    return fn(args.pop("X"), args.pop("y"), args.pop("k"), args.pop("epsilon"), **args)


@pytest.mark.parametrize("kw,exc,msg", BAD)
def test_dp_kendall_bad_input(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        _call(dp_kendall, kw)


@pytest.mark.parametrize("kw,exc,msg", [b for b in BAD if "constant" not in b[2]])
def test_sub_lasso_bad_input(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        _call(sub_lasso, kw)


@pytest.mark.parametrize("Sel", [DPKendallSelector, SubLassoSelector])
@pytest.mark.parametrize("kw,exc,msg", [b for b in BAD if set(b[0]) <= {"k", "epsilon"}])
def test_selectors_bad_params(Sel, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        Sel(**kw).fit(X, y)


def test_constant_label_refused():
    with pytest.raises(ValueError, match="y"):
        dp_kendall(X, np.ones(40), 2, 1.0)


def test_sub_lasso_bad_m_alpha():
    with pytest.raises(ValueError, match="m"):
        sub_lasso(X, y, 2, 1.0, m=0)
    with pytest.raises(TypeError, match="m"):
        sub_lasso(X, y, 2, 1.0, m=2.5)
    with pytest.raises(ValueError, match="alpha"):
        sub_lasso(X, y, 2, 1.0, alpha=0.0)


def test_size_and_rng():
    with pytest.raises(ValueError, match="size"):
        dp_kendall(X, y, 2, 1.0, size=0)
    with pytest.raises(TypeError, match="rng"):
        dp_kendall(X, y, 2, 1.0, rng="seed")


def test_unfitted_selector_and_helpers():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        DPKendallSelector().get_support()
    with pytest.raises(ValueError, match="n"):
        audit_pair(n=6)
    with pytest.raises(ValueError, match="n"):
        theorem38_data(-3)


def test_sub_lasso_zero_coefficients_cast_no_vote():
    "A Lasso that keeps no feature votes for none (before: the first k columns, in column order)."
    from dplit.dpkendall import _lasso_votes
    assert _lasso_votes(X, y, 2, alpha=1e6).sum() == 0
    v = _lasso_votes(X, y, 2, alpha=0.05)
    assert v[0] == 1 and v.sum() <= 2
