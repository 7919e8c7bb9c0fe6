"""Bad input for dplit.bss (nbs/50_bss.ipynb): every refusal names the offending parameter; clipping
warns; the conditional mistakes method refuses data without the Theorem 2 gap; seeds reproduce."""
import math
import warnings

import numpy as np
import pytest

from dplit.bss import (BestSubsetSelector, ExhaustiveSearch, GapConditionError, clip_data,
                       enumerate_supports, exponential_support_select, mistakes_ptr_select,
                       mistakes_select, sensitivity, support_score, support_scores,
                       theorem1_epsilon, top_r_select)


def _data(n=60, p=6, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-0.5, 0.5, size=(n, p))
    y = np.clip(X[:, 0] + X[:, 1] + 0.05 * g.normal(size=n), -0.5, 0.5)
    return X, y


X, Y = _data()
YH = np.where(X[:, 0] > 0, 1.0, -1.0)


@pytest.mark.parametrize("s", [0, 6, 7, -1])
def test_s_out_of_range(s):
    with pytest.raises(ValueError, match="s"):
        top_r_select(X, Y, s, 1.0, rng=0)
    with pytest.raises(ValueError, match="s"):
        enumerate_supports(X, Y, s, r=1.0)


@pytest.mark.parametrize("s", [2.0, "2", None])
def test_s_not_integer(s):
    with pytest.raises(TypeError, match="s"):
        top_r_select(X, Y, s, 1.0, rng=0)


@pytest.mark.parametrize("R", [0, math.comb(6, 2), 10 ** 6])
def test_R_out_of_range(R):
    with pytest.raises(ValueError, match="R"):
        top_r_select(X, Y, 2, 1.0, R=R, rng=0)
    with pytest.raises(ValueError, match="R"):
        theorem1_epsilon(1.0, 3, R, 6, 2, 60)


@pytest.mark.parametrize("T", [0, -2, 2.5])
def test_T_invalid(T):
    with pytest.raises((ValueError, TypeError), match="T"):
        top_r_select(X, Y, 2, 1.0, T=T, rng=0)


@pytest.mark.parametrize("name", ["b_x", "b_y", "r"])
@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_bounds_and_radius(name, bad):
    kw = dict(b_x=0.5, b_y=0.5, r=1.1)
    kw[name] = bad
    with pytest.raises(ValueError, match=name):
        top_r_select(X, Y, 2, 1.0, rng=0, **kw)
    with pytest.raises(ValueError, match=name):
        sensitivity(60, 2, **kw)


@pytest.mark.parametrize("eps", [0.0, -1.0, math.nan, math.inf])
def test_epsilon(eps):
    for f in (top_r_select, mistakes_select, exponential_support_select):
        with pytest.raises(ValueError, match="epsilon"):
            f(X, Y, 2, eps, rng=0)
    with pytest.raises(ValueError, match="epsilon_test"):
        mistakes_ptr_select(X, Y, 2, 1.0, epsilon_test=eps, delta=1e-6, rng=0)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        mistakes_ptr_select(X, Y, 2, 1.0, epsilon_test=0.5, delta=delta, rng=0)


@pytest.mark.parametrize("which", ["X", "y"])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite(which, bad):
    Xb, yb = X.copy(), Y.copy()
    (Xb if which == "X" else yb)[3] = bad
    with pytest.raises(ValueError, match=which):
        top_r_select(Xb, yb, 2, 1.0, rng=0)
    with pytest.raises(ValueError, match=which):
        support_score(Xb, yb, [0, 1], r=1.0)


def test_shape_mismatch_and_dims():
    with pytest.raises(ValueError, match="same number of rows"):
        top_r_select(X, Y[:-1], 2, 1.0, rng=0)
    with pytest.raises(ValueError, match="X"):
        top_r_select(X[:, 0], Y, 1, 1.0, rng=0)


@pytest.mark.parametrize("labels", [np.arange(60) % 3, np.full(60, 2.0), np.linspace(-1, 1, 60)])
def test_hinge_labels(labels):
    with pytest.raises(ValueError, match="y"):
        top_r_select(X, labels, 2, 1.0, loss="hinge", rng=0)


def test_hinge_accepts_pm1_and_01():
    a = top_r_select(X, YH, 2, 1.0, loss="hinge", rng=3, b_x=0.5)
    b = top_r_select(X, (YH + 1) / 2, 2, 1.0, loss="hinge", rng=3, b_x=0.5)
    assert a.value == b.value


@pytest.mark.parametrize("kw,name",
                         [(dict(loss="absolute"), "loss"), (dict(bound="loose"), "bound")])
def test_options(kw, name):
    with pytest.raises(ValueError, match=name):
        top_r_select(X, Y, 2, 1.0, rng=0, **kw)


@pytest.mark.parametrize("kw,name",
                         [(dict(rule="most"), "rule"), (dict(gap_check="ignore"), "gap_check")])
def test_mistakes_options(kw, name):
    with pytest.raises(ValueError, match=name):
        mistakes_select(X, Y, 2, 1.0, rng=0, **kw)


@pytest.mark.parametrize("support", [[0, 0], [0, 6], [-1, 2], [], [0.5, 1.0]])
def test_support(support):
    with pytest.raises((ValueError, TypeError), match="support"):
        support_score(X, Y, support, r=1.0)


def test_clipping_warns_and_clips():
    Xb, yb = X * 10, Y * 10
    with pytest.warns(UserWarning, match="clipped"):
        Xc, yc = clip_data(Xb, yb, b_x=0.5, b_y=0.5)
    assert np.abs(Xc).max() <= 0.5 and np.abs(yc).max() <= 0.5
    with pytest.warns(UserWarning, match="clipped"):
        top_r_select(Xb, yb, 2, 1.0, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        top_r_select(X, Y, 2, 1.0, rng=0)          # inside the bounds: no warning


def test_gap_condition_is_checked():
    g = np.random.default_rng(1)
    Xn = g.uniform(-0.5, 0.5, size=(30, 6))
    yn = np.clip(g.normal(size=30), -0.5, 0.5)        # pure noise: no gap
    with pytest.raises(GapConditionError, match="Theorem 2"):
        mistakes_select(Xn, yn, 2, 1.0, rng=0)
    with pytest.warns(UserWarning, match="Theorem 2"):
        mistakes_select(Xn, yn, 2, 1.0, gap_check="warn", rng=0)
    r = mistakes_ptr_select(Xn, yn, 2, 1.0, epsilon_test=0.5, delta=1e-6, rng=0)  # releases
    assert len(r.value) == 2 and r.spend.delta == 1e-6
    assert mistakes_ptr_select(Xn, yn, 2, 1.0, epsilon_test=0.5, delta=1e-6, fallback=None,
                               rng=0).value is None


def test_search_backend_limit():
    with pytest.raises(ValueError, match="max_supports"):
        ExhaustiveSearch(max_supports=10).top_r(X, Y, 2, 3, r=1.0)


def test_seeds_reproduce():
    for f in (top_r_select, mistakes_select, exponential_support_select):
        kw = dict(gap_check="warn") if f is mistakes_select else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = [f(X, Y, 2, 0.3, rng=s, **kw).value for s in range(5)]
            b = [f(X, Y, 2, 0.3, rng=s, **kw).value for s in range(5)]
        assert a == b


def test_selector_bad_method_and_fraction():
    with pytest.raises(ValueError, match="method"):
        BestSubsetSelector(s=2, method="lasso").fit(X, Y)
    with pytest.raises(ValueError, match="test_fraction"):
        BestSubsetSelector(s=2, method="mistakes_ptr", test_fraction=1.0).fit(X, Y)
    with pytest.raises(ValueError, match="loss"):
        BestSubsetSelector(s=2, loss="l1").fit(X, Y)


def test_support_scores_batch_matches_single():
    S = np.array([[0, 1], [2, 5], [1, 3]])
    v = support_scores(X, Y, S, r=0.7)
    assert np.allclose(v, [support_score(X, Y, s_, r=0.7) for s_ in S], rtol=0, atol=1e-12)


@pytest.mark.parametrize("R", [0, math.comb(6, 2), 2.5])
def test_ptr_R_checked_before_the_test(R):
    # R is refused up front, also when the fallback would never run (an error raised only when the
    # test fails would depend on the data)
    with pytest.raises((ValueError, TypeError), match="R"):
        mistakes_ptr_select(X, Y, 2, 1.0, epsilon_test=0.5, delta=1e-6, R=R, fallback=None, rng=0)


def test_search_must_be_a_backend():
    with pytest.raises(TypeError, match="search"):
        top_r_select(X, Y, 2, 1.0, search=object(), rng=0)
    with pytest.raises(TypeError, match="search"):
        mistakes_select(X, Y, 2, 1.0, search="exhaustive", gap_check="warn", rng=0)


def test_hinge_finite_T_needs_no_b_y():
    r = top_r_select(X, YH, 2, 1.0, T=3, loss="hinge", b_y=None, rng=0)
    assert r.spend.epsilon > 1.0
