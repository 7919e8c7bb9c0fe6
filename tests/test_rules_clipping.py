"""Rule (issue 21): clipping is never silent.

Every release that clips data to public bounds warns once per fit with a
`dplit.core.ClippingWarning` (one bit for the curator, not a release: no counts since issue 36;
the counts only under `clipping_counts()`); data inside the bounds give no warning. Every public private estimator (discovered from the modules' `__all__`) is classified
here as clipping or not; a new one fails `test_every_private_estimator_is_classified` until it is.
The diabetes cases of finding 6 are regression tests: on main they were silent.
"""
import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes

from dplit.core import ClippingWarning, clipping_counts, warn_clipped

from test_rules_pickle import (NON_PRIVATE, NOT_RELEASES, _accountant, _bas, public_estimators,
                               public_release_functions)

N, P = 57, 6


def data(scale: float = 1.0, binary: bool = False, seed: int = 0):
    "Tiny data inside every default bound (|x| <= 0.4, row norm < 1, |y| <= 0.45), times scale."
    g = np.random.default_rng(seed)
    X = g.uniform(-0.4, 0.4, (N, P)) / np.sqrt(P)
    if binary:
        return scale * X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    y = np.clip(0.6 * X[:, 0] - 0.4 * X[:, 1] + 0.05 * g.normal(size=N), -0.45, 0.45)
    return scale * X, scale * y


def clipping_warnings(fn):
    "Run fn with every warning recorded; return the ClippingWarnings."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [x for x in w if issubclass(x.category, ClippingWarning)]


# name -> (constructor kwargs, binary labels); the estimator clips data outside its bounds
CLIPPING = {
    "BoostedAdaSSPRegressor": (dict(n_rounds=5), False),
    "AdaSSPRegressor": (dict(), False),
    "BestSubsetSelector": (dict(s=2), False),
    "BestSubsetSelector-hinge": (dict(s=2, loss="hinge"), True),
    "DPSISSelector": (dict(k=2), False),
    "DPSparseGPRegressor": (dict(inducing_points=4, clip_y=True), False),
    "DPRadoBoostClassifier": (dict(n_rados=10, T=10), True),
    "ObjectivePerturbationRegressor": (dict(), False),
    "DPLogisticRegression": (dict(), True),
    "SSPRegressor": (dict(n_boot=50), False),
    "PrivateRegressionPipeline-BAS": (dict(pipeline="BAS", epsilon=5.0), False),
    "PrivateRegressionPipeline-K-BAS": (dict(pipeline="K-BAS", k=2, epsilon=5.0), False),
    "PrivateRegressionPipeline-L-BAS": (dict(pipeline="L-BAS", k=2, epsilon=5.0), False),
    # Charged draws nothing of its own: the wrapped estimator's fit clips and warns
    "Charged": (dict(estimator=_bas(n_rounds=5), accountant=_accountant()), False),
}
# PrivateClipScaler's fit releases ranges (values outside the grid are counted, not clipped); its
# transform clips to them: tested below. PrivateGridSearch fits the wrapped estimator once per run
# and emits only the selected run's warnings, once (tests/test_i36b_warnings.py): tested below.
# RecipeRegressor clips y, and RecipeClassifier X, to their privately released ranges on every fit
# (always some values): tested in tests/test_recipes.py.
CLIPPING_ELSEWHERE = {"PrivateClipScaler", "PrivateGridSearch", "RecipeRegressor",
                      "RecipeClassifier"}
# estimators with no clipping bounds (their privacy does not rest on bounded data)
NO_CLIPPING = {
    "TukeyRegressor": (dict(epsilon=5.0), False),
    "TukeyRegressor-given-bound": (dict(n_tilde=N, epsilon=5.0, fit_intercept=False), False),
    "DPKendallSelector": (dict(k=2), False),
    "SubLassoSelector": (dict(k=2, m=4), False),
    "PrivateRegressionPipeline-Tukey": (dict(pipeline="Tukey", epsilon=5.0), False),
    "PrivateRegressionPipeline-K-Tukey": (dict(pipeline="K-Tukey", k=2, epsilon=5.0), False),
    "PrivateRegressionPipeline-L-Tukey": (dict(pipeline="L-Tukey", k=2, epsilon=5.0), False),
}


def _estimator(key, kw):
    cls = dict(public_estimators())[key.split("-")[0]]
    kw = dict(kw)
    if "random_state" in inspect.signature(cls).parameters:
        kw["random_state"] = 0
    return cls(**kw)


def test_every_private_estimator_is_classified():
    "A new public estimator must be declared clipping (and tested) or not clipping."
    classified = {k.split("-")[0] for k in list(CLIPPING) + list(NO_CLIPPING)} | CLIPPING_ELSEWHERE
    private = {n for n, _ in public_estimators()} - set(NON_PRIVATE)
    assert private <= classified, f"classify in tests/test_rules_clipping.py: {private - classified}"


@pytest.mark.parametrize("key", sorted(CLIPPING))
def test_clipping_estimators_warn_once_outside_and_never_inside(key):
    kw, binary = CLIPPING[key]
    inside = clipping_warnings(lambda: _estimator(key, kw).fit(*data(1.0, binary)))
    assert inside == [], [str(w.message) for w in inside]
    outside = clipping_warnings(lambda: _estimator(key, kw).fit(*data(100.0, binary)))
    assert len(outside) == 1, [str(w.message) for w in outside]
    msg = str(outside[0].message)
    assert "not a release" in msg and "without looking at the data" in msg
    assert "some values were clipped" in msg and not re.search(r"\d of \d", msg), msg


@pytest.mark.parametrize("key", sorted(NO_CLIPPING))
def test_estimators_without_bounds_never_warn(key):
    kw, binary = NO_CLIPPING[key]
    assert clipping_warnings(lambda: _estimator(key, kw).fit(*data(100.0, binary))) == []


def _functions():
    from dplit.boosted_adassp import boosted_adassp
    from dplit.bss import (clip_data, exponential_support_select, mistakes_ptr_select,
                           mistakes_select, top_r_select)
    from dplit.bss_baselines import mcmc_select
    from dplit.dpgp import dpgp_inference
    from dplit.dpgp_hyper import dpgp_inference_heteroscedastic
    from dplit.dpsis import dp_sis
    from dplit.distributed import exact_boosted_adassp
    from dplit.inference import ssp_release
    from dplit.objpert import objective_perturbation
    Z = np.linspace(-0.1, 0.1, 3)[:, None] * np.ones((1, P))
    yield "clip_data", lambda X, y: clip_data(X, y, b_x=0.5, b_y=0.5)
    yield "boosted_adassp", lambda X, y: boosted_adassp(X, y, 1.0, 1e-5, n_rounds=3, rng=0)
    yield "top_r_select", lambda X, y: top_r_select(X, y, 2, 1.0, rng=0)
    yield "mistakes_select", lambda X, y: mistakes_select(X, y, 2, 1.0, gap_check="warn", rng=0)
    yield "mistakes_ptr_select", lambda X, y: mistakes_ptr_select(
        X, y, 2, 1.0, epsilon_test=0.5, delta=1e-6, rng=0)
    yield "exponential_support_select", lambda X, y: exponential_support_select(X, y, 2, 1.0,
                                                                                rng=0)
    yield "mcmc_select", lambda X, y: mcmc_select(X, y, 2, 1.0, 0.1, rng=0)
    yield "dp_sis", lambda X, y: dp_sis(X, y, 2, 1.0, rng=0)
    yield "objective_perturbation", lambda X, y: objective_perturbation(
        X, y, 1.0, b_x=1.0, b_y=1.0, r=1.0, rng=0)
    yield "ssp_release", lambda X, y: ssp_release(X, y, 1.0, 1e-5, 1.0, 1.0, rng=0)
    yield "exact_boosted_adassp", lambda X, y: exact_boosted_adassp(X, y, 1.0, 1e-5, n_rounds=3,
                                                                    rng=0)
    yield "dpgp_inference", lambda X, y: dpgp_inference(X, y, Z, 0.1, 1.0, 1e-4, clip_y=True,
                                                        rng=0)
    yield "dpgp_inference_heteroscedastic", lambda X, y: dpgp_inference_heteroscedastic(
        X, y, np.ones(len(y)), Z, 1.0, 1e-4, 1.0, clip_y=True, rng=0)


# release functions that clip nothing (their privacy does not rest on bounded data)
NO_CLIPPING_FUNCTIONS = {
    "tukey_regression": "each row moves one model; no bounds",
    "dp_kendall": "Kendall's tau is bounded by construction",
    "sub_lasso": "votes of subsample fits; no bounds",
    "samp_agg_select": "votes of block fits; no bounds",
    "two_stage_top_k": "vote counts of block supports; no bounds",
    "dp_feat_rados": "boolean features in {-1, 1}, refused otherwise",
    "dp_dirichlet_gp_classifier": "Dirichlet targets bounded by construction (labels refused "
                                  "outside [0, C))",
}


def test_every_release_function_is_classified():
    "A public release function (X and epsilon) is tested for clipping here or declared free of it."
    names = {n for n, _ in _functions()} | set(NO_CLIPPING_FUNCTIONS)
    missing = public_release_functions() - set(NOT_RELEASES) - names
    assert missing == set(), f"classify in tests/test_rules_clipping.py: {missing}"


@pytest.mark.parametrize("name", sorted(NO_CLIPPING_FUNCTIONS))
def test_functions_without_bounds_never_warn(name):
    "Far outside every default bound, these stay silent (they clip nothing to warn about)."
    from test_rules_pickle import _releases
    X, y = data(100.0)
    release = dict(_releases())[name]
    assert clipping_warnings(lambda: release(X, y)) == []


@pytest.mark.parametrize("name, fn", list(_functions()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_clipping_functions_warn_once_outside_and_never_inside(name, fn):
    assert clipping_warnings(lambda: fn(*data(1.0))) == []
    out = clipping_warnings(lambda: fn(*data(100.0)))
    assert len(out) == 1, [str(w.message) for w in out]


def test_hyperparameter_learning_names_each_set():
    "The two disjoint sets of Alg 2 are two data sets: one warning each, named."
    from dplit.dpgp_hyper import dp_hyperparameter_learning
    X, y = data(100.0)
    Z = np.linspace(-0.1, 0.1, 3)[:, None] * np.ones((1, P))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            dp_hyperparameter_learning(X[:30], y[:30], X[30:], y[30:], Z, [(1.0, 0.1)], 1.0,
                                       1e-3, clip_y=True, rng=0)
        except ValueError:
            pass            # a failure later in the search is not this test's concern
    msgs = [str(x.message) for x in w if issubclass(x.category, ClippingWarning)]
    assert len(msgs) == 2 and "training set" in msgs[0] and "validation set" in msgs[1]


def test_warn_clipped_one_bit_and_silence():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert warn_clipped("f", [("entries of y", 0, 10, "[-1, 1]")]) is None
        msg = warn_clipped("f", [("entries of X", 1, 40, "[-1, 1]"),
                                 ("entries of y", 10, 10, "[-1, 1]")])
        with clipping_counts():                   # the opt-in, non-private diagnostic
            diag = warn_clipped("f", [("entries of X", 1, 40, "[-1, 1]")])
    assert len(w) == 2 and w[0].category is ClippingWarning
    assert "40" not in msg and "10 of" not in msg and "%" not in msg
    assert "entries of X: [-1, 1]" in msg and "entries of y: [-1, 1]" in msg
    assert "NON-PRIVATE" in diag and "1 of 40" in diag


# ---- finding 6: the diabetes cases (sklearn ships the data) ----

@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(return_X_y=True)


def test_dpsis_default_bounds_on_diabetes_warn(diabetes):
    "Default y_bounds (-1, 1) against y in [25, 346]: every y clipped, every score ~0."
    from dplit.dpsis import DPSISSelector
    X, y = diabetes
    with clipping_counts():
        w = clipping_warnings(lambda: DPSISSelector(k=3, random_state=0).fit(X, y))
    assert len(w) == 1 and f"entries of y {len(y)} of {len(y)}" in str(w[0].message)
    # and on y scaled by a public constant (the progression score's range, 0..400) it is quiet
    assert clipping_warnings(lambda: DPSISSelector(k=3, y_bounds=(0, 400),
                                                   random_state=0).fit(X, y)) == []


def test_boosted_adassp_on_raw_diabetes_warns(diabetes):
    "Raw y at epsilon = 1e4: the fit is noise (R^2 < 0 here); the labels are all clipped."
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    X, y = diabetes
    est = BoostedAdaSSPRegressor(epsilon=1e4, random_state=0)
    with clipping_counts():
        w = clipping_warnings(lambda: est.fit(X, y))
    assert len(w) == 1 and f"residuals) {len(y)} of {len(y)}" in str(w[0].message)
    assert clipping_warnings(lambda: BoostedAdaSSPRegressor(epsilon=1e4, random_state=0)
                             .fit(X, y / 400)) == []


@pytest.mark.parametrize("pipeline", ["BAS", "K-BAS", "L-BAS"])
def test_bas_pipelines_on_raw_diabetes_warn(diabetes, pipeline):
    from dplit.pipelines import PrivateRegressionPipeline
    X, y = diabetes
    est = PrivateRegressionPipeline(pipeline=pipeline, k=3, epsilon=1e4, random_state=0)
    with clipping_counts():
        w = clipping_warnings(lambda: est.fit(X, y))
    assert len(w) == 1 and f"residuals) {len(y)} of {len(y)}" in str(w[0].message)


def test_mcmc_select_warns_when_it_clips(diabetes):
    "mcmc_select clipped with warn=False."
    from dplit.bss_baselines import mcmc_select
    X, y = diabetes
    w = clipping_warnings(lambda: mcmc_select(X[:60, :5], y[:60], 2, 1.0, 0.1, rng=0))
    assert len(w) == 1 and "mcmc_select" in str(w[0].message)


def test_best_subset_warning_is_a_clipping_warning(diabetes):
    from dplit.bss import BestSubsetSelector
    X, y = diabetes
    with clipping_counts():
        w = clipping_warnings(lambda: BestSubsetSelector(s=2, random_state=0).fit(X[:60, :5],
                                                                                  y[:60]))
    assert len(w) == 1 and "entries of y 60 of 60" in str(w[0].message)


def test_dpgp_clip_y_warns(diabetes):
    from dplit.dpgp import DPSparseGPRegressor
    X, y = diabetes
    est = DPSparseGPRegressor(inducing_points=4, input_bounds=(-0.2, 0.2), clip_y=True,
                              random_state=0)
    with clipping_counts():
        w = clipping_warnings(lambda: est.fit(X[:, :2], y))
    assert len(w) == 1 and f"targets {len(y)} of {len(y)}" in str(w[0].message)


def test_docstrings_state_the_bounds():
    "Each clipping estimator's docstring says its bounds are chosen without looking at the data."
    for key in CLIPPING:
        if key == "Charged":
            continue                  # no bounds of its own: the wrapped estimator's docstring
        cls = dict(public_estimators())[key.split("-")[0]]
        doc = " ".join(inspect.getdoc(cls).split())
        assert "without looking at the data" in doc and "ClippingWarning" in doc, cls.__name__


def test_floating_point_releases_point_to_chapter_07():
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    from dplit.dpgp import DPSparseGPRegressor
    from dplit.mechanisms import gaussian_mechanism, laplace_mechanism
    from dplit.tukey import TukeyRegressor
    for obj in (laplace_mechanism, gaussian_mechanism, DPSparseGPRegressor,
                BoostedAdaSSPRegressor, TukeyRegressor):
        doc = " ".join(inspect.getdoc(obj).split())
        assert "not safe to publish as is" in doc and "discrete" in doc, obj.__name__


def test_coinpress_mean_warns_for_its_public_interval_only():
    "COINPRESS's first step clips to the public [centre - radius, centre + radius]: one warning."
    from dplit.dpgp_hyper import coinpress_mean
    x = np.random.default_rng(0).normal(size=200)
    assert clipping_warnings(lambda: coinpress_mean(x, 0.0, 10.0, 1.0, rng=0)) == []
    with clipping_counts():
        w = clipping_warnings(lambda: coinpress_mean(x + 50.0, 0.0, 10.0, 1.0, rng=0))
    assert len(w) == 1 and "entries of x 200 of 200" in str(w[0].message)
    # values exactly on the bounds (what Alg 2 passes after its own clipping) are not clipped
    assert clipping_warnings(lambda: coinpress_mean(np.clip(x, -1, 1), 0.0, 1.0, 1.0,
                                                    rng=0)) == []


def test_private_clip_scaler_transform_warns_once_outside_and_never_inside():
    "The released ranges clip in transform: one ClippingWarning per call when anything is clipped."
    from dplit.bounds import PrivateClipScaler
    X, _ = data(1.0)
    sc = PrivateClipScaler(epsilon=50.0, bounds=(-1.0, 1.0), quantiles=(0.0, 1.0), n_grid=21,
                           random_state=0).fit(X)
    lo, hi = sc.ranges_[:, 0], sc.ranges_[:, 1]
    inside = np.clip(X, lo, hi)                      # inside the released ranges by construction
    assert clipping_warnings(lambda: sc.transform(inside)) == []
    out = clipping_warnings(lambda: sc.transform(100.0 * X))
    assert len(out) == 1 and "entries of X" in str(out[0].message), [str(w.message) for w in out]


def test_private_grid_search_runs_warn_and_stay_quiet_inside():
    "Inside the wrapped estimator's bounds no run warns; far outside, the runs' fits warn."
    from dplit.tuning import PrivateGridSearch
    search = lambda: PrivateGridSearch(estimator=_bas(n_rounds=3), param_grid={"n_rounds": [3]},
                                       epsilon=5.0, random_state=0)
    assert clipping_warnings(lambda: search().fit(*data(1.0))) == []
    assert len(clipping_warnings(lambda: search().fit(*data(100.0)))) >= 1
