"""Issue 21, rules "strict parameters" and "everything validated before the first random draw".

For every public estimator (its `get_params()`) and every public release function (its signature),
discovered from the modules' `__all__` (tests/_rules_registry.py): a flag given as a string or an
int, a number given as a string, a complex number or a bool, and data holding complex numbers or
(numeric) strings are refused with a TypeError/ValueError that names the parameter -- and the
refusal comes before any random draw, as a recording generator shows (numpy's `default_rng` is
patched so that every generator dplit makes records its use).
"""
import inspect
import numbers
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import clone

import _rules_registry as R

ESTIMATORS = R.public_estimators()
FUNCTIONS = R.release_functions()
DATA_PARAMS = {"X", "y", "value", "scores", "utility", "x", "Z", "noise_var", "labels"}
ARRAY_OK = {"value", "inducing_points"}  # an array of real numbers is a valid value of these


def bad_values(value, p=""):
    "Wrong-type substitutes for a parameter `p` whose valid value is `value`."
    if isinstance(value, (bool, np.bool_)):
        return ["False", "True", 0, 1, None]
    if isinstance(value, numbers.Real) or isinstance(value, Fraction):
        obj = [] if p in ARRAY_OK else [np.array([value], dtype=object)]
        return [str(value), complex(value, 1.0), True] + obj
    if value is None:
        return ["1", 1j]
    if (isinstance(value, tuple) and value
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)):
        return [tuple(str(v) for v in value), tuple(complex(v, 1.0) for v in value)]
    return []


def _cases_estimators():
    for name, cls in sorted(ESTIMATORS.items()):
        params = clone(R.make(name)).get_params()
        for p, v in sorted(params.items()):
            if p == "random_state" or "__" in p:
                continue      # a nested estimator's parameters: checked under its own name
            for bad in bad_values(v, p):
                yield pytest.param(name, p, bad, id=f"{name}-{p}-{bad!r}")


def _cases_functions():
    for name, fn in sorted(FUNCTIONS.items()):
        kw = R.CALLS[name]
        for p, par in inspect.signature(fn).parameters.items():
            if p in ("rng", "observer", "_prepared") or p in DATA_PARAMS and np.ndim(kw.get(p)) > 0:
                continue
            v = kw.get(p, par.default)
            if v is inspect.Parameter.empty:
                continue
            for bad in bad_values(v, p):
                yield pytest.param(name, p, bad, id=f"{name}-{p}-{bad!r}")


def _assert_named_refusal(call, p, untouched):
    with pytest.raises((TypeError, ValueError)) as exc:
        call()
    assert p in str(exc.value), f"the message does not name {p}: {exc.value}"
    assert untouched(), "a random draw happened before the refusal"


@pytest.mark.parametrize("name,p,bad", list(_cases_estimators()))
def test_estimator_parameter_strict(name, p, bad, monkeypatch):
    _, X, y, _ = R.FIT_CASES[name]
    est = R.make(name, **{p: bad})
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    rec = R.DrawRecorder(monkeypatch)
    _assert_named_refusal(lambda: R.fit_quiet(est, X, y), p, rec.untouched)


@pytest.mark.parametrize("name,p,bad", list(_cases_functions()))
def test_function_parameter_strict(name, p, bad, monkeypatch):
    rec = R.DrawRecorder(monkeypatch)
    g = R.RecordingGenerator(0)
    kw = {**R.CALLS[name], p: bad}
    _assert_named_refusal(lambda: FUNCTIONS[name](**kw, rng=g),
                          p, lambda: g.untouched() and rec.untouched())


# parameters that one mode of an estimator leaves unused must be refused in every mode too
MODES = {
    "BestSubsetSelector": [dict(method="mistakes", gap_check="warn"), dict(method="mistakes_ptr"),
                           dict(method="exponential")],
    "PrivateRegressionPipeline": [dict(pipeline=p) for p in ("K-Tukey", "L-BAS", "L-Tukey", "Tukey",
                                                              "BAS")],
    "TukeyRegressor": [dict(n_tilde=300.0)],
}


def _cases_modes():
    for name, modes in sorted(MODES.items()):
        for m in modes:
            for p, v in sorted(clone(R.make(name, **m)).get_params().items()):
                if p == "random_state" or p in m:
                    continue
                for bad in bad_values(v, p):
                    yield pytest.param(name, m, p, bad, id=f"{name}-{m}-{p}-{bad!r}")


@pytest.mark.parametrize("name,mode,p,bad", list(_cases_modes()))
def test_estimator_parameter_strict_every_mode(name, mode, p, bad, monkeypatch):
    _, X, y, _ = R.FIT_CASES[name]
    R.fit_quiet(R.make(name, **mode, random_state=0), X, y)  # the mode itself fits
    est = R.make(name, **mode, random_state=0, **{p: bad})
    rec = R.DrawRecorder(monkeypatch)
    _assert_named_refusal(lambda: R.fit_quiet(est, X, y), p, rec.untouched)


def _bad_data(A):
    A = np.asarray(A, dtype=float)
    return {"complex": A + 0.5j, "numeric strings (object)": A.astype(str).astype(object),
            "numeric strings": A.astype(str)}


def _is_classifier(name):
    from sklearn.base import ClassifierMixin
    cls = R.public_estimators().get(name)
    return "Classifier" in name or (cls is not None and issubclass(cls, ClassifierMixin))


def _cases_data():
    for name in sorted(ESTIMATORS):
        for which in ("X", "y"):
            if which == "y" and R.FIT_CASES[name][2] is None:
                continue                      # a transformer: y is ignored
            for kind in _bad_data([0.0]):
                if which == "y" and _is_classifier(name) and kind != "complex":
                    continue                  # class labels may be strings
                yield pytest.param("est", name, which, kind, id=f"{name}-{which}-{kind}")
    for name in sorted(FUNCTIONS):
        for p, v in R.CALLS[name].items():
            if p in DATA_PARAMS and np.ndim(v) > 0:
                for kind in _bad_data([0.0]):
                    yield pytest.param("fn", name, p, kind, id=f"{name}-{p}-{kind}")


@pytest.mark.parametrize("what,name,p,kind", list(_cases_data()))
def test_data_strict(what, name, p, kind, monkeypatch):
    "Complex data and numeric strings are refused on every path, naming the argument."
    rec = R.DrawRecorder(monkeypatch)
    if what == "est":
        _, X, y, _ = R.FIT_CASES[name]
        data = {"X": X, "y": y}
        data[p] = _bad_data(data[p])[kind]
        est = R.make(name)
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        _assert_named_refusal(lambda: R.fit_quiet(est, data["X"], data["y"]), p, rec.untouched)
    else:
        g = R.RecordingGenerator(0)
        kw = dict(R.CALLS[name])
        kw[p] = _bad_data(kw[p])[kind]
        _assert_named_refusal(lambda: FUNCTIONS[name](**kw, rng=g), p,
                              lambda: g.untouched() and rec.untouched())


# ---- the findings of issue 21, one regression test each (each failed on main before the fix) ----

def test_finding3_tukey_string_flags_and_numbers():
    from dplit.tukey import TukeyRegressor
    _, X, y, _ = R.FIT_CASES["TukeyRegressor"]
    for p, bad in [("paper_accounting", "False"), ("fit_intercept", "False"), ("n_share", "0.05"),
                   ("n_tilde", "2900")]:
        with pytest.raises((TypeError, ValueError), match=p):
            TukeyRegressor(random_state=0, **{p: bad}).fit(X, y)


def test_finding3_discrete_laplace_string_scale():
    from dplit.discrete import discrete_laplace
    with pytest.raises(TypeError, match="scale"):
        discrete_laplace("1", rng=0)


def test_finding3_complex_and_string_data():
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    from dplit.tukey import TukeyRegressor
    _, X, y, _ = R.FIT_CASES["BoostedAdaSSPRegressor"]
    with pytest.raises(ValueError, match="X must be real"):
        BoostedAdaSSPRegressor(random_state=0).fit(X + 1j, y)
    with pytest.raises(ValueError, match="y must be real"):
        TukeyRegressor(random_state=0).fit(X, y + 1j)
    with pytest.raises(TypeError, match="X must be numeric"):  # sklearn's validate_data path
        BoostedAdaSSPRegressor(random_state=0).fit(X.astype(str).astype(object), y)
    with pytest.raises(TypeError, match="X must be numeric"):  # dplit's check_array path
        TukeyRegressor(random_state=0).fit(X.astype(str).astype(object), y)


def test_finding4_tukey_n_models_before_the_count(monkeypatch):
    from dplit.tukey import TukeyRegressor
    _, X, y, _ = R.FIT_CASES["TukeyRegressor"]
    rec = R.DrawRecorder(monkeypatch)
    for bad in (0, 2.5, "3"):
        with pytest.raises((TypeError, ValueError), match="n_models"):
            TukeyRegressor(random_state=0, n_models=bad).fit(X, y)
    assert rec.untouched()


def test_finding4_k_tukey_constant_columns_before_the_count(monkeypatch):
    from dplit.pipelines import PrivateRegressionPipeline
    _, X, y, _ = R.FIT_CASES["PrivateRegressionPipeline"]
    Xc = X.copy()
    Xc[:, 1] = 3.0
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="constant columns"):
        PrivateRegressionPipeline(pipeline="K-Tukey", k=1, random_state=0).fit(Xc, y)
    with pytest.raises(ValueError, match="y is constant"):
        PrivateRegressionPipeline(pipeline="K-BAS", k=1, random_state=0).fit(X, np.ones(len(y)))
    assert rec.untouched()


@pytest.mark.parametrize("name", ["discrete_laplace_mechanism", "discrete_gaussian_mechanism",
                                  "laplace_mechanism", "gaussian_mechanism", "exponential_mechanism",
                                  "peel_top_k"])
def test_finding4_relation_before_the_draw(name):
    g = R.RecordingGenerator(0)
    with pytest.raises(ValueError, match="relation"):
        FUNCTIONS[name](**R.CALLS[name], rng=g, relation="swap")
    assert g.untouched()


def test_dpgp_data_refused_before_the_inducing_points(monkeypatch):
    "y beyond R_y (clip_y=False), kernel_bound='1d' on several columns: refused before Z is drawn"
    _, X, y, _ = R.FIT_CASES["DPSparseGPRegressor"]
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="exceeds R_y") as exc:
        R.make("DPSparseGPRegressor", random_state=0).fit(X, 10 * y)
    assert f"{np.max(np.abs(10 * y)):.4g}" not in str(exc.value)  # no private value in the message
    with pytest.raises(ValueError, match="kernel_bound='1d'"):
        R.make("DPSparseGPRegressor", random_state=0, kernel_bound="1d").fit(R.X4, R.Y4)
    assert rec.untouched()


def test_recording_generator_records():
    "The recorder itself: a draw, and a draw by a spawned child, are seen."
    g = R.RecordingGenerator(1)
    assert g.untouched()
    g.spawn(2)[1].normal()
    assert not g.untouched()
    h = R.RecordingGenerator(1)
    h.laplace()
    assert h._log == ["laplace"] and not h.untouched()
