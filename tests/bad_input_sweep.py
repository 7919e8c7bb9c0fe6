"""Bad-input sweep over dplit's public estimators and release functions (issue 21).

Each *target* is a public estimator, release function or search backend with one valid base call on tiny
data. Its parameters are discovered by introspection (``inspect.signature`` / ``get_params``) and each one
is given a *role* by name (``ROLES``); every role has a list of bad (or borderline) values. A case replaces
one parameter of one target's base call with one value, and says what must happen:

* ``"raise"`` -- the value is bad: the call must raise ``ValueError``/``TypeError`` naming the parameter;
* ``"any"`` -- the value may be legitimate: either such an exception, or a finite release.

Cases run in worker subprocesses (``python tests/bad_input_sweep.py --worker``), one case at a time, with a
per-case time limit; a worker that dies (signal, abort) or overruns is killed and its case is classified
``crash`` or ``timeout``, and a fresh worker continues with the next case. Verdicts:

``pass`` | ``silent`` (bad input accepted) | ``wrong_exception`` (another type, or a message that does
not name the parameter) | ``nonfinite`` (a release with NaN/inf) | ``crash`` | ``timeout`` |
``base_error`` (the unperturbed base call failed: a harness error, counted as bad).

Run the full sweep:  ``python tests/bad_input_sweep.py [--jobs 2] [--json out.json]``.
"""
from __future__ import annotations

import dataclasses
import fractions
import inspect
import json
import math
import os
import select
import subprocess
import sys
import time
import warnings
from collections import Counter

import numpy as np

BAD_CLASSES = ("silent", "wrong_exception", "nonfinite", "crash", "timeout", "base_error")
N, P, S = 40, 5, 2                                   # tiny data: every case runs in well under a second


# ----------------------------------------------------------------------------------------------- data
def _data(seed: int = 0, n: int = N, p: int = P, labels: bool = False):
    g = np.random.default_rng(seed)
    X = g.uniform(-0.5, 0.5, size=(n, p))
    beta = np.zeros(p)
    beta[:S] = 1.0
    y = X @ beta + 0.05 * g.standard_normal(n)
    if labels:
        y = np.where(y >= 0, 1.0, -1.0)
    else:
        y = np.clip(y, -0.5, 0.5)
    return X, y


def _big_data(seed: int = 0):
    """More rows for the methods that need many (Tukey: models of d+1 rows each)."""
    return _data(seed, n=2000, p=2)


# ---------------------------------------------------------------------------------------------- targets
def _targets():
    """name -> dict(kind, factory, base, xy, labels).

    kind: "func" calls factory()(**kw); "est" builds factory()(**params).fit(X, y); "method" builds
    factory()(**ctor) and calls its method (ctor and method parameters are prefixed ``ctor.``).
    """
    from dplit import (audit, boosted_adassp, bss, bss_baselines, bss_mip, core, discrete, mechanisms,
                       pipelines, tukey)

    T = {}

    def add(name, kind, obj, base, xy="small", labels=False, method=None, ctor=None, only=None,
            inf_ok=False):
        T[name] = dict(kind=kind, obj=obj, base=base, xy=xy, labels=labels, method=method,
                       ctor=ctor or {}, only=only, inf_ok=inf_ok)

    variant = ("X", "y", "epsilon", "s", "k", "r", "b_x", "b_y", "search", "time_limit")

    # core mechanisms
    add("laplace_mechanism", "func", mechanisms.laplace_mechanism,
        dict(value=np.array([0.3, -0.2]), sensitivity=1.0, epsilon=1.0, rng=0, size=None,
             relation="add/remove"))
    add("gaussian_mechanism", "func", mechanisms.gaussian_mechanism,
        dict(value=np.array([0.3, -0.2]), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0, size=None,
             relation="add/remove"))
    add("exponential_mechanism", "func", mechanisms.exponential_mechanism,
        dict(utility=np.array([0.1, 0.5, 0.2]), sensitivity=1.0, epsilon=1.0, rng=0, monotonic=False,
             size=None, relation="add/remove"))
    add("peel_top_k", "func", mechanisms.peel_top_k,
        dict(scores=np.array([0.1, 0.5, 0.2, 0.9]), k=2, sensitivity=1.0, epsilon=1.0, rng=0, size=None,
             relation="add/remove"))
    add("analytic_gaussian_sigma", "func", mechanisms.analytic_gaussian_sigma,
        dict(sensitivity=1.0, epsilon=1.0, delta=1e-5))
    add("gumbel_noise", "func", mechanisms.gumbel_noise, dict(scale=1.0, size=3, rng=0))
    # discrete noise
    add("discrete_laplace", "func", discrete.discrete_laplace, dict(scale=2.0, size=3, rng=0))
    add("discrete_gaussian", "func", discrete.discrete_gaussian, dict(sigma2=2.0, size=3, rng=0))
    add("discrete_laplace_mechanism", "func", discrete.discrete_laplace_mechanism,
        dict(value=np.array([0.3, -0.2]), sensitivity=1.0, epsilon=1.0, granularity=0.01, rng=0,
             relation="add/remove"))
    add("discrete_gaussian_mechanism", "func", discrete.discrete_gaussian_mechanism,
        dict(value=np.array([0.3, -0.2]), sensitivity=1.0, epsilon=1.0, delta=1e-5, granularity=0.01,
             rng=0, relation="add/remove"))
    add("grid_sensitivity", "func", discrete.grid_sensitivity,
        dict(sensitivity=1.0, granularity=0.01, d=1, norm="l1"))
    # Tukey
    add("TukeyRegressor", "est", tukey.TukeyRegressor,
        dict(epsilon=1.0, delta=1e-5, random_state=0), xy="big")
    add("tukey_regression", "func", tukey.tukey_regression,
        dict(epsilon=1.0, delta=1e-5, rng=0, n_share=0.05, eta=None, paper_accounting=False,
             n_tilde=None, n_models=None), xy="big")
    add("private_n_lower_bound", "func", tukey.private_n_lower_bound,
        dict(n=100, epsilon=1.0, eta=1e-3, rng=0))
    add("restricted_em_sample", "func", tukey.restricted_em_sample,
        dict(models=_data(3, n=30, p=2)[0], t=3, epsilon=1.0, size=2, rng=0, profile=None,
             mutant=None))
    add("tukey_budget", "func", tukey.tukey_budget,
        dict(epsilon=1.0, delta=1e-5, n_share=0.05, eta=None, paper_accounting=False))
    # Boosted AdaSSP
    add("BoostedAdaSSPRegressor", "est", boosted_adassp.BoostedAdaSSPRegressor,
        dict(epsilon=1.0, delta=1e-5, n_rounds=5, random_state=0))
    add("boosted_adassp", "func", boosted_adassp.boosted_adassp,
        dict(epsilon=1.0, delta=1e-5, n_rounds=5, fit_intercept=True, ridge="adassp",
             shares=(1 / 3, 1 / 3, 1 / 3), eta=1.0, clip_x=1.0, clip_r=1.0, rho=0.05, rng=0))
    add("bas_budget", "func", boosted_adassp.bas_budget,
        dict(epsilon=1.0, delta=1e-5, n_rounds=5, shares=(1 / 3, 1 / 3, 1 / 3), clip_x=1.0,
             clip_r=1.0, relation="add/remove"))
    add("release_sensitivities", "func", boosted_adassp.release_sensitivities,
        dict(relation="add/remove", clip_x=1.0, clip_r=1.0))
    # pipelines
    for pipe in ("K-Tukey", "K-BAS", "L-BAS"):
        add(f"PrivateRegressionPipeline[{pipe}]", "est", pipelines.PrivateRegressionPipeline,
            dict(pipeline=pipe, k=1, random_state=0), xy="big",
            only=None if pipe == "K-Tukey" else variant)
    # TukeyGivenBound is folded into TukeyRegressor(fit_intercept=False, n_tilde=...) (issue 23)
    add("TukeyRegressor[given_bound]", "est", tukey.TukeyRegressor,
        dict(epsilon=1.0, delta=1e-5, fit_intercept=False, n_tilde=2000.0, random_state=0),
        xy="big")
    add("budget_split", "func", pipelines.budget_split,
        dict(pipeline="K-Tukey", epsilon=1.0, delta=1e-5, count_share=0.05, selection_share=0.05,
             eta=None))
    add("private_count_lower_bound", "func", pipelines.private_count_lower_bound,
        dict(n=100, epsilon=1.0, eta=1e-4, rng=0, size=None))
    # best-subset selection and its backends
    add("BestSubsetSelector[top_r]", "est", bss.BestSubsetSelector,
        dict(s=S, epsilon=1.0, method="top_r", random_state=0))
    add("BestSubsetSelector[mistakes]", "est", bss.BestSubsetSelector,
        dict(s=S, epsilon=1.0, method="mistakes", gap_check="warn", random_state=0), only=variant)
    add("BestSubsetSelector[hinge]", "est", bss.BestSubsetSelector,
        dict(s=S, epsilon=1.0, loss="hinge", search=bss_mip.HingeOASearch(time_limit=30.0),
             random_state=0), labels=True, only=variant)
    add("BestSubsetSelector[mip]", "est", bss.BestSubsetSelector,
        dict(s=S, epsilon=1.0, search=bss_mip.MIPSearch(time_limit=30.0), random_state=0),
        only=variant)
    add("top_r_select", "func", bss.top_r_select,
        dict(s=S, epsilon=1.0, R=None, T=math.inf, r=1.1, b_x=0.5, b_y=0.5, loss="squared",
             bound="tight", search=None, rng=0))
    add("mistakes_select", "func", bss.mistakes_select,
        dict(s=S, epsilon=1.0, r=1.1, b_x=0.5, b_y=0.5, loss="squared", bound="tight", rule="exact",
             gap_check="warn", search=None, rng=0))
    add("mistakes_ptr_select", "func", bss.mistakes_ptr_select,
        dict(s=S, epsilon=1.0, epsilon_test=1.0, delta=1e-3, fallback="top_r", R=None, r=1.1,
             b_x=0.5, b_y=0.5, loss="squared", bound="tight", rule="exact", search=None, rng=0))
    add("exponential_support_select", "func", bss.exponential_support_select,
        dict(s=S, epsilon=1.0, r=1.1, b_x=0.5, b_y=0.5, loss="squared", bound="tight", rng=0))
    add("sensitivity", "func", bss.sensitivity,
        dict(n=N, s=S, b_x=0.5, b_y=0.5, r=1.1, loss="squared", bound="tight"))
    add("theorem1_epsilon", "func", bss.theorem1_epsilon,
        dict(epsilon=1.0, T=math.inf, R=3, p=P, s=S, n=N, b_x=0.5, b_y=0.5, r=1.1, loss="squared",
             bound="tight"))
    add("ExhaustiveSearch.top_r", "method", bss.ExhaustiveSearch, dict(s=S, R=3, r=1.1),
        method="top_r", ctor=dict(max_supports=2_000_000))
    add("MIPSearch.top_r", "method", bss_mip.MIPSearch, dict(s=S, R=3, r=1.1), method="top_r",
        ctor=dict(tol=1e-9, oa_tol=5e-3, oa2_time=2.0, time_limit=30.0, max_candidates=2_000_000,
                  warm_start="iht", certify_time=30.0, memory_budget=512e6))
    add("HingeOASearch.top_r", "method", bss_mip.HingeOASearch, dict(s=S, R=3, r=1.1),
        method="top_r", ctor=dict(tol=1e-9, time_limit=30.0), labels=True)
    add("mip9_top_r", "func", bss_mip.mip9_top_r, dict(s=S, R=3, r=1.1, time_limit=30.0))
    # baselines
    add("samp_agg_select", "func", bss_baselines.samp_agg_select,
        dict(s=S, epsilon=1.0, n_blocks=None, vote=None, rng=0))
    add("mcmc_select", "func", bss_baselines.mcmc_select,
        dict(s=S, epsilon=1.0, delta=1e-3, B=3.5, b_x=0.5, b_y=0.5, n_iter=200, max_iter=1_000_000,
             rng=0))
    add("samp_agg_sample", "func", bss_baselines.samp_agg_sample,
        dict(votes=np.array([3.0, 1.0, 0.0, 2.0]), s=S, scale=1.0, rng=0, size=None))
    add("top_r_sample", "func", bss.top_r_sample,
        dict(supports=np.array([[0, 1], [0, 2], [1, 2]]), scores=np.array([0.1, 0.4, 0.5]), p=P,
             s=S, epsilon=1.0, delta=1e-6, T=math.inf, rng=0, size=None))
    add("mcmc_sensitivity", "func", bss_baselines.mcmc_sensitivity, dict(B=3.5, b_x=0.5, b_y=0.5))
    add("mcmc_temperature", "func", bss_baselines.mcmc_temperature,
        dict(epsilon=1.0, B=3.5, b_x=0.5, b_y=0.5))
    # not a release: a chain length, documented to be math.inf when no finite length suffices
    add("mcmc_steps", "func", bss_baselines.mcmc_steps,
        dict(epsilon=1.0, delta=1e-3, n=N, p=P, s=S), inf_ok=True)
    # private bounds, tuning and the budget accountant (issue 24)
    from dplit import accountant, bounds, tuning
    add("private_quantile", "func", bounds.private_quantile,
        dict(x=_data()[1], q=0.5, epsilon=1.0, bounds=(-1.0, 1.0), n_grid=101,
             relation="add/remove", rng=0, size=None))
    add("private_range", "func", bounds.private_range,
        dict(x=_data()[1], epsilon=1.0, bounds=(-1.0, 1.0), quantiles=(0.05, 0.95), n_grid=101,
             relation="add/remove", rng=0, size=None))
    add("PrivateClipScaler", "est", bounds.PrivateClipScaler,      # a transformer: y is ignored
        dict(epsilon=1.0, bounds=(-1.0, 1.0), n_grid=101, random_state=0),
        only=("epsilon", "bounds", "quantiles", "n_grid", "feature_range", "relation",
              "random_state", "X"))
    add("random_stopping_select", "func", tuning.random_stopping_select,
        dict(run=_stopping_run, epsilon_run=1.0, kind="logarithmic", gamma=0.1, rng=0,
             relation="add/remove"))
    add("PrivateGridSearch", "est", tuning.PrivateGridSearch,
        dict(estimator=boosted_adassp.BoostedAdaSSPRegressor(n_rounds=3),
             param_grid={"n_rounds": [3, 5]}, random_state=0))
    add("Charged", "est", accountant.Charged,
        dict(estimator=boosted_adassp.BoostedAdaSSPRegressor(n_rounds=3, random_state=0),
             accountant=accountant.BudgetAccountant(1e9, 0.5, tight=False)))
    # sweep runner and audit
    add("run_sweep", "func", core.run_sweep,
        dict(task=_sweep_task, settings=[{"a": 1.0}, {"a": 2.0}], repeats=1, rng=0, n_jobs=1,
             progress=False, desc=None, scheduler=None, labels=None))
    add("audit", "func", audit.audit,
        dict(mechanism=_audit_mechanism, d0=0.0, d1=1.0, epsilon=1.0, delta=0.0, n_trials=2000,
             pilot_trials=None, statistic=None, kind="threshold", vectorized=False, rng=0,
             confidence=0.95, n_jobs=1, progress=False, scheduler=None, chunk_size=None))
    return T


def _stopping_run(rng):
    "One run of a random-stopping selection: a candidate and its noisy score."
    return 0, float(rng.laplace())


def _sweep_task(setting, rng=None):
    return float(setting["a"]) + float(np.random.default_rng(rng).standard_normal())


def _audit_mechanism(d, rng, size=None):
    """The user's mechanism of the audit cases. d0 and d1 are handed to it untouched (the role
    "opaque": anything may be valid), so it refuses what it cannot use the way a user's mechanism
    should, naming the argument; and it takes `size`, so np.True_ for `vectorized` is valid."""
    if isinstance(d, (bool, np.bool_, complex, np.complexfloating, str, bytes)) or d is None \
            or np.ndim(d) != 0:
        raise TypeError(f"d0/d1 must be a real number for this mechanism, got {d!r}")
    return float(d) + rng.laplace(0.0, 1.0, size)


# ------------------------------------------------------------------------------------------------ roles
ROLES = {
    "X": "X", "y": "y", "value": "value", "utility": "vector", "scores": "vector",
    "votes": "vector", "models": "models", "supports": "supports", "t": "size_k",
    "profile": "object", "mutant": "choice",
    "rng": "rng", "random_state": "rng",
    "epsilon": "eps", "epsilon_test": "eps",
    "delta": "prob", "n_share": "prob", "count_share": "prob", "selection_share": "prob",
    "test_fraction": "prob", "confidence": "prob", "eta": "eta",
    "sensitivity": "sensitivity", "scale": "pos", "sigma2": "pos", "granularity": "pos", "r": "pos",
    "b_x": "pos", "b_y": "pos", "clip_x": "pos", "clip_r": "pos", "B": "pos", "rho": "pos",
    "lasso_alpha": "pos", "tol": "pos", "oa_tol": "pos", "oa2_time": "pos", "time_limit": "limit",
    "certify_time": "pos", "memory_budget": "pos",
    "T": "limit", "n_tilde": "pos_or_none",
    "s": "size_k", "k": "size_k", "R": "size_k", "n": "count", "p": "count", "d": "count",
    "n_rounds": "iters", "n_iter": "iters", "max_iter": "iters", "n_blocks": "iters",
    "n_models": "iters", "max_supports": "iters", "max_candidates": "iters", "n_trials": "iters",
    "pilot_trials": "iters", "repeats": "iters", "chunk_size": "iters", "size": "size",
    "n_jobs": "n_jobs",
    "method": "choice", "loss": "choice", "bound": "choice", "rule": "choice", "gap_check": "choice",
    "relation": "choice", "ridge": "choice", "pipeline": "choice", "m_rule": "choice",
    "warm_start": "choice", "kind": "choice", "fallback": "choice", "norm": "choice",
    "fit_intercept": "bool", "paper_accounting": "bool", "monotonic": "bool", "vectorized": "bool",
    "progress": "bool",
    "shares": "shares", "search": "object", "regressor": "object", "vote": "vote",
    "mechanism": "callable", "task": "callable", "statistic": "callable", "settings": "settings",
    "d0": "opaque", "d1": "opaque", "labels": "object", "scheduler": "object", "desc": "text",
    "x": "vector", "q": "unit", "bounds": "pair", "quantiles": "pair", "feature_range": "pair",
    "n_grid": "count_or_none",  # None: no grid (the continuous private quantile)
    "estimator": "object", "param_grid": "object", "gamma": "prob",
    "error_bound": "pos", "validation_fraction": "prob", "accountant": "object", "label": "text",
    "run": "callable", "epsilon_run": "eps", "schema": "object",
}

_R, _A = "raise", "any"


def _num_common(default):
    none = _A if default is None else _R
    return [("nan", float("nan"), _R), ("-inf", -math.inf, _R), ("str", "1", _R),
            ("complex", 1 + 0j, _R), ("bool", True, _R), ("None", None, none)]


def _values(role, default):
    """The (label, value, expectation) cases for one parameter role."""
    c = _num_common(default)
    if role == "eps":
        return c + [("inf", math.inf, _R), ("zero", 0.0, _R), ("neg", -1.0, _R), ("huge", 1e300, _A),
                    ("large", 1e3, _A), ("subnormal", 1e-320, _A)]
    if role in ("pos", "pos_or_none", "limit"):
        inf = _A if role == "limit" else _R
        return c + [("inf", math.inf, inf), ("zero", 0.0, _A), ("neg", -1.0, _R),
                    ("huge", 1e300, _A), ("subnormal", 1e-320, _A)]
    if role == "prob":
        return c + [("inf", math.inf, _R), ("zero", 0.0, _A), ("one", 1.0, _R), ("neg", -0.1, _R),
                    ("above", 1.5, _R), ("subnormal", 1e-320, _A)]
    if role == "unit":                    # a quantile: both ends of [0, 1] are valid
        return c + [("inf", math.inf, _R), ("zero", 0.0, _A), ("one", 1.0, _A), ("neg", -0.1, _R),
                    ("above", 1.5, _R), ("subnormal", 1e-320, _A)]
    if role == "pair":                    # (low, high) with low < high
        return [("nan", (float("nan"), 0.5), _R), ("inf", (0.1, math.inf), _R),
                ("reversed", (0.9, 0.1), _R), ("equal", (0.5, 0.5), _R), ("str", "ab", _R),
                ("str_pair", ("0.1", "0.9"), _R), ("short", (0.5,), _R), ("None", None, _R),
                ("complex", (0.1 + 1j, 0.9), _R), ("three", (0.1, 0.5, 0.9), _R)]
    if role == "eta":
        return c + [("inf", math.inf, _R), ("zero", 0.0, _A), ("neg", -0.1, _R),
                    ("subnormal", 1e-320, _A)]
    if role in ("size_k", "count", "count_or_none", "iters", "size", "n_jobs"):
        none = _A if default is None or role == "count_or_none" else _R
        out = [("nan", float("nan"), _R), ("inf", math.inf, _A if role == "iters" else _R),
               ("str", "2", _R), ("bool", True, _R), ("None", None, none),
               ("frac", 1.5, _R), ("float_int", 2.0, _A), ("huge", 1e300, _R)]
        if role != "n_jobs":
            out += [("zero", 0, _A if role == "size" else _R), ("neg", -1, _R)]
        if role == "size_k":
            out += [("k_gt_d", 1000, _R)]
        return out
    if role == "choice":
        return [("unknown", "nonsense", _R), ("int", 1, _R),
                ("None", None, _A if default is None else _R), ("bytes", b"x", _R)]
    if role == "bool":
        return [("str_false", "False", _R), ("int1", 1, _R), ("None", None, _R),
                ("np_bool", np.True_, _A)]
    if role == "rng":
        return [("str", "seed", _R), ("neg", -1, _R), ("frac", 1.5, _R), ("object", object(), _R),
                ("generator", "GEN", _A)]
    if role == "shares":
        return [("nan", (float("nan"), 0.5, 0.5), _R), ("neg", (-0.5, 1.0, 0.5), _R),
                ("short", (0.5, 0.5), _R), ("zero", (0.0, 0.5, 0.5), _R), ("str", "abc", _R),
                ("over", (1.0, 1.0, 1.0), _R), ("inf", (math.inf, 0.5, 0.5), _R)]
    if role == "sensitivity":             # issue 36: 1e308 at the base epsilon overflows sigma
        return _values("pos", default) + [("max308", 1e308, _A)]
    if role == "vote":                    # issue 36: a block's vote must be s distinct indices in [0, p)
        bad = lambda S: (lambda X, y, s: np.array(S))
        return _values("callable", default) + [
            ("negative", bad([-1, 0]), _R), ("out_of_range", bad([0, 10**6]), _R),
            ("float", bad([0.0, 1.0]), _R), ("bool", bad([True, False]), _R)]
    if role in ("object", "callable", "settings", "text"):
        return [("str", "x", _R if role != "text" else _A), ("int", 1, _R),
                ("object", object(), _R), ("None", None, _A if default is None else _R)]
    if role == "opaque":                  # handed to the user's own callable: anything may be valid
        return [(lab, v, _A) for lab, v, _ in _values("value", default)]
    if role == "value":
        return [("nan", float("nan"), _R), ("inf", math.inf, _R),
                ("nan_vec", np.array([0.1, np.nan]), _R), ("huge", 1e300, _A),
                ("max", 1.7e308, _A), ("subnormal", 1e-320, _A), ("str", "1", _R),
                ("complex", 1 + 1j, _R), ("None", None, _R),
                ("object", np.array([None, 1.0], dtype=object), _R), ("empty", np.array([]), _A),
                ("bool", True, _R)]
    if role == "models":
        M = _data(3, n=30, p=2)[0]
        return [("nan", _put(M, np.nan), _R), ("inf", _put(M, np.inf), _R),
                ("huge", M * 1e300, _A), ("subnormal", M * 1e-320, _A),
                ("complex", M + 1j, _R), ("strings", M.astype(str), _R), ("1d", M[:, 0], _R),
                ("empty", M[:0], _R), ("None", None, _R)]
    if role == "supports":
        return [("out_of_range", np.array([[0, 1], [0, 9], [1, 2]]), _R),
                ("float", np.array([[0.5, 1], [0, 2], [1, 2]]), _R),
                ("wrong_s", np.array([[0, 1, 2], [0, 2, 3], [1, 2, 3]]), _R),
                ("None", None, _R), ("str", "x", _R), ("empty", np.zeros((0, 2), int), _A)]
    if role == "vector":
        return [("nan", np.array([0.1, np.nan, 0.2]), _R), ("inf", np.array([0.1, np.inf, 0.2]), _R),
                ("huge", np.array([1e300, -1e300, 0.0]), _A), ("empty", np.array([]), _R),
                ("scalar", 0.5, _R), ("str", np.array(["a", "b"]), _R),
                ("complex", np.array([1j, 0.2]), _R), ("matrix", np.ones((2, 2)), _R),
                ("None", None, _R), ("subnormal", np.array([1e-320, 0.0, 0.1]), _A)]
    raise KeyError(role)


def _X_values(X, y):
    c = X.copy()
    c[:, 1] = 0.25
    return [
        ("nan", _put(X, np.nan), _R), ("inf", _put(X, np.inf), _R),
        ("huge", X * 1e300, _A), ("big", X * 1e154, _A), ("e20", X * 1e20, _A),
        ("subnormal", X * 1e-320, _A), ("const_col", c, _A),
        ("strings", X.astype(str).astype(object) + "x", _R), ("num_strings", X.astype(str), _R),
        ("complex", X + 1j, _R), ("object_none", _obj_none(X), _R), ("1d", X[:, 0], _R),
        ("no_rows", X[:0], _R), ("one_row", X[:1], _R), ("wrong_len", X[:-3], _R),
        ("list", X.tolist(), _A), ("no_cols", X[:, :0], _R),
    ]


def _y_values(y, labels):
    n = len(y)
    out = [
        ("nan", _put(y, np.nan), _R), ("inf", _put(y, np.inf), _R),
        ("complex", y + 1j, _R), ("strings", y.astype(str), _R),
        ("wrong_len", y[:-3], _R), ("2col", np.c_[y, y], _R), ("empty", y[:0], _R),
        ("object_none", _obj_none(y), _R), ("col", y[:, None], _A),
    ]
    if labels:
        out += [("zero_one", (y > 0).astype(float), _A), ("reals", y * 0.3, _R),
                ("huge", y * 1e300, _R), ("three", _three(y), _R)]
    else:
        out += [("huge", y * 1e300, _A), ("big", y * 1e154, _A), ("e20", y * 1e20, _A),
                ("subnormal", y * 1e-320, _A), ("const", np.full(n, 0.3), _A)]
    return out


def _put(a, v):
    a = np.array(a, dtype=float)
    a.flat[3] = v
    return a


def _obj_none(a):
    o = np.array(a, dtype=object)
    o.flat[2] = None
    return o


def _three(y):
    y = y.copy()
    y[0] = 2.0
    return y


# ------------------------------------------------------------------------------------------------ cases
def _params(t):
    """The public parameters of a target, by introspection."""
    out = _all_params(t)
    if t["only"] is not None:
        out = [o for o in out if o[1] in t["only"]]
    return out


def _all_params(t):
    obj = t["obj"]
    if t["kind"] == "est":
        names = {k: p.default for k, p in inspect.signature(obj).parameters.items()}
        return [("", k, v) for k, v in names.items()] + [("", "X", None), ("", "y", None)]
    if t["kind"] == "method":
        ctor = [("ctor.", k, p.default) for k, p in inspect.signature(obj).parameters.items()]
        meth = [("", k, p.default) for k, p in
                inspect.signature(getattr(obj, t["method"])).parameters.items() if k != "self"]
        return ctor + meth
    return [("", k, p.default) for k, p in inspect.signature(obj).parameters.items()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


def unroled():
    """Parameters of registered targets with no role: a new parameter must be given one."""
    out = []
    for name, t in _targets().items():
        for pre, k, _ in _all_params(t):
            if k not in ROLES:
                out.append(f"{name}:{pre}{k}")
    return out


def cases():
    """All cases, as (case_id, target, prefix, param, label, expectation)."""
    out = []
    T = _targets()
    for name, t in T.items():
        out.append((f"{name}|base", name, "", "", "base", "valid"))
        X, y = _xy(t)
        for pre, k, default in _params(t):
            if isinstance(default, type(inspect.Parameter.empty)) or default is inspect.Parameter.empty:
                default = "REQUIRED"
            role = ROLES[k]
            if role == "X":
                vals = _X_values(X, y)
            elif role == "y":
                vals = _y_values(y, t["labels"])
            else:
                vals = _values(role, default)
            for label, _, exp in vals:
                cid = f"{name}|{pre}{k}|{label}"
                out.append((cid, name, pre, k, label, VALID_HERE.get(cid, exp)))
    return out


# Cases the role tables count as bad that are valid inputs of this one target (each reviewed):
# they may be refused or give a finite release ("any"), but accepting them is not a silent bug.
VALID_HERE = {
    # a true count of 0 (an empty dataset) is a valid input of a private count release
    "private_n_lower_bound|n|zero": _A,
    "private_count_lower_bound|n|zero": _A,
    # `sensitivity` has no p: any s >= 1 is a support size its formula accepts
    "sensitivity|s|k_gt_d": _A,
    # documented: fallback=None releases None when the PTR test fails
    "mistakes_ptr_select|fallback|None": _A,
    # hinge loss: labels are +-1 and `clip_data` takes b_y=None (no bound on y is needed)
    "BestSubsetSelector[hinge]|b_y|None": _A,
    # top_r_sample's delta is the scores' sensitivity (Delta of Algorithm 1), not a probability
    "top_r_sample|delta|one": _A,
    "top_r_sample|delta|above": _A,
    # a transformer fitted on X alone: one row, or 37 rows (no y to disagree with), is valid data
    "PrivateClipScaler|X|one_row": _A,
    "PrivateClipScaler|X|wrong_len": _A,
    # n_tilde is a count lower bound, and a released one may be < 0: the pipelines pass theirs to
    # TukeyRegressor(n_tilde=...) as is, and Tukey's PTR test then refuses (no release)
    "tukey_regression|n_tilde|neg": _A,
    "TukeyRegressor|n_tilde|neg": _A,
    "TukeyRegressor[given_bound]|n_tilde|neg": _A,
}


_EXP = {}


def _expectations():
    if not _EXP:
        _EXP.update((c[0], c[5]) for c in cases())
    return _EXP


def _xy(t):
    if t["xy"] == "big":
        X, y = _big_data()
    else:
        X, y = _data(labels=t["labels"])
    return X, y


def _value_for(t, pre, k, label):
    X, y = _xy(t)
    role = ROLES[k]
    if role == "X":
        vals = _X_values(X, y)
    elif role == "y":
        vals = _y_values(y, t["labels"])
    else:
        default = dict((kk, d) for p, kk, d in _params(t) if p == pre).get(k)
        vals = _values(role, default)
    v = dict((lab, val) for lab, val, _ in vals)[label]
    if isinstance(v, str) and v == "GEN":
        v = np.random.default_rng(1)
    return v


# -------------------------------------------------------------------------------------------- execution
def _call(t, pre, k, v):
    X, y = _xy(t)
    base = dict(t["base"])
    ctor = dict(t["ctor"])
    data = {"X": X, "y": y}
    if k in ("X", "y"):
        data[k] = v
    elif pre == "ctor.":
        ctor[k] = v
    elif k:
        base[k] = v
    obj = t["obj"]
    if t["kind"] == "est":
        est = obj(**base)
        return est.fit(data["X"], data["y"])
    if t["kind"] == "method":
        return getattr(obj(**ctor), t["method"])(data["X"], data["y"], **base)
    sig = inspect.signature(obj).parameters
    if "X" in sig:
        return obj(data["X"], data["y"], **base)
    return obj(**base)


def _nonfinite(out, depth=0, seen=None):
    """Path to the first non-finite number in a release (or None)."""
    if seen is None:
        seen = set()
    if depth > 4 or id(out) in seen:
        return None
    seen.add(id(out))
    if out is None or isinstance(out, (str, bytes, bool, int, np.integer, np.bool_)):
        return None
    if isinstance(out, (float, np.floating)):
        return None if math.isfinite(out) else repr(out)
    if isinstance(out, (complex, np.complexfloating)):
        return repr(out)
    if isinstance(out, np.ndarray):
        if out.dtype.kind in "fc":
            return None if np.all(np.isfinite(out)) else "array"
        if out.dtype == object:
            for e in out.flat[:50]:
                r = _nonfinite(e, depth + 1, seen)
                if r:
                    return r
        return None
    if isinstance(out, dict):
        items = out.items()
    elif isinstance(out, (list, tuple)):
        items = enumerate(out)
    elif dataclasses.is_dataclass(out):
        items = ((f.name, getattr(out, f.name)) for f in dataclasses.fields(out))
    elif hasattr(out, "get_params") and hasattr(out, "__dict__"):
        items = ((a, v) for a, v in vars(out).items() if a.endswith("_") and not a.startswith("_"))
    else:
        return None
    for key, v in items:
        r = _nonfinite(v, depth + 1, seen)
        if r:
            return f"{key}.{r}"
    return None


def names_param(k: str, msg: str) -> bool:
    """Does the message name parameter `k` (as a word: 'r' in 'error' does not count)?"""
    import re
    return bool(k) and re.search(rf"(?<![A-Za-z0-9_]){re.escape(k)}(?![A-Za-z0-9_])", msg) is not None


# dplit's own exceptions for outcomes of a private run (a failed PTR test, a gap check, a solver
# stopped at its time limit): legitimate for an input that may be valid, never for a bad one.
OUTCOME_EXCEPTIONS = ("PTRFailed", "GapConditionError", "SolverError")


def _is_plain(e) -> bool:
    "A ValueError/TypeError raised as such (numpy's LinAlgError subclasses ValueError: not ours)."
    return type(e) in (ValueError, TypeError)


def classify(exp, exc_name, msg, k, plain=None):
    """Verdict for a call that raised `exc_name` with message `msg` (parameter `k` perturbed)."""
    if plain is None:
        plain = exc_name in ("ValueError", "TypeError")
    if exp == "valid":
        return "base_error"
    if plain:
        return "pass" if names_param(k, msg) else "wrong_exception"
    if exc_name in OUTCOME_EXCEPTIONS and exp == "any":
        return "pass"
    return "wrong_exception"


def reclassify(results):
    """Re-apply `classify` to stored verdicts (their detail keeps the exception and message)."""
    exp = _expectations()
    out = []
    for r in results:
        r = dict(r)
        d = r.get("detail", "")
        if r["verdict"] == "silent" and exp[r["id"]] != "raise":
            r["verdict"] = "pass"
        if r["verdict"] in ("pass", "wrong_exception", "base_error") and ": " in d \
                and d.split(": ", 1)[0].isidentifier() and d != "finite release":
            name, msg = d.split(": ", 1)
            k = r["id"].split("|")[1].replace("ctor.", "") if r["id"].count("|") == 2 else ""
            r["verdict"] = classify(exp[r["id"]], name, msg, k)
        out.append(r)
    return out


def run_case(case_id):
    """Run one case in this process; return the verdict dict."""
    name, rest = case_id.split("|", 1)
    t = _targets()[name]
    parts = rest.split("|")
    if parts == ["base"]:
        pre = k = ""
        label, exp = "base", "valid"
        v = None
    else:
        full, label = parts
        pre, k = ("ctor.", full[5:]) if full.startswith("ctor.") else ("", full)
        exp = _expectations()[case_id]
        v = _value_for(t, pre, k, label)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = _call(t, pre, k, v)
        except Exception as e:                                   # noqa: BLE001 -- classified
            name, msg = type(e).__name__, str(e)
            verdict = classify(exp, name, msg, k, _is_plain(e))
            return dict(id=case_id, verdict=verdict, detail=f"{name}: {msg[:300]}",
                        seconds=time.perf_counter() - t0)
    bad = None if (t["inf_ok"] and out == math.inf) else _nonfinite(out)
    if bad:
        verdict, detail = "nonfinite", bad
    elif exp == "raise":
        verdict, detail = "silent", "accepted"
    else:
        verdict, detail = "pass", "finite release"
    return dict(id=case_id, verdict=verdict, detail=detail, seconds=time.perf_counter() - t0)


def _worker():
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    import dplit                                   # warm the import before the first case
    sys.stdout.write(f"READY {dplit.__file__}\n")
    sys.stdout.flush()
    for line in sys.stdin:
        cid = line.rstrip("\n")
        if not cid:
            continue
        try:
            res = run_case(cid)
        except BaseException as e:                               # noqa: BLE001 -- harness error
            res = dict(id=cid, verdict="base_error", detail=f"harness {type(e).__name__}: {e}"[:200])
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


# ----------------------------------------------------------------------------------------------- driver
class _Worker:
    announced = False

    def __init__(self, env):
        self.env = env
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([sys.executable, "-u", os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=self.env)
        line = self._readline(300)
        if not line or not line.startswith("READY"):
            raise RuntimeError(f"worker did not start: {line!r}")
        if not _Worker.announced:
            print(f"worker imports {line[6:]}", file=sys.stderr, flush=True)
            _Worker.announced = True

    def _readline(self, timeout):
        end = time.monotonic() + timeout
        fd = self.proc.stdout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], left)
            if r:
                line = fd.readline()
                if not line:
                    return ""
                line = line.strip()
                if line.startswith("{") or line.startswith("READY"):
                    return line

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def run(self, cid, timeout):
        if self.proc is None:
            self.start()
        t0 = time.perf_counter()
        self.proc.stdin.write(cid + "\n")
        self.proc.stdin.flush()
        line = self._readline(timeout)
        if line is None:
            self.kill()
            return dict(id=cid, verdict="timeout", detail=f"> {timeout} s", seconds=timeout)
        if line == "":
            rc = self.proc.wait()
            self.proc = None
            return dict(id=cid, verdict="crash", detail=f"worker died, returncode {rc}",
                        seconds=time.perf_counter() - t0)
        return json.loads(line)


def run_sweep(ids, jobs=2, timeout=60.0, progress=True):
    """Run case ids in ``jobs`` worker subprocesses; returns the verdicts in order."""
    import threading
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    results = {}
    queue = list(ids)
    lock = threading.Lock()

    def loop():
        w = _Worker(env)
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    cid = queue.pop(0)
                res = w.run(cid, timeout)
                with lock:
                    results[cid] = res
                    if progress and len(results) % 100 == 0:
                        print(f"  {len(results)}/{len(ids)}", file=sys.stderr, flush=True)
        finally:
            w.kill()

    threads = [threading.Thread(target=loop) for _ in range(jobs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return [results[c] for c in ids]


# The default run's subset: finding 5's inputs (magnitudes at and beyond float64's range) and the
# issue's reproductions; the type-strictness cases (strings, complex, bool ...) run in the full sweep.
SUBSET_LABELS = ("huge", "big", "e20", "subnormal", "large", "max")


def default_subset(all_ids, n=50):
    """A small fixed subset for the default test run: the issue's reproductions plus a spread
    sample of finding 5's magnitude cases (Tukey's slow first fit left to the full sweep)."""
    must = ["HingeOASearch.top_r|r|huge", "MIPSearch.top_r|y|huge", "MIPSearch.top_r|y|big",
            "MIPSearch.top_r|y|e20", "laplace_mechanism|sensitivity|huge",
            "laplace_mechanism|sensitivity|subnormal", "sensitivity|r|huge", "sensitivity|b_x|huge",
            "mcmc_select|epsilon|large", "MIPSearch.top_r|ctor.time_limit|huge",
            "BestSubsetSelector[hinge]|r|huge", "mcmc_sensitivity|b_y|huge",
            "gaussian_mechanism|sensitivity|max308", "samp_agg_select|vote|negative",
            "samp_agg_select|vote|out_of_range", "samp_agg_select|vote|float"]
    must = [m for m in must if m in all_ids]
    ints = ("size_k", "count", "count_or_none", "iters", "size", "n_jobs")  # 1e300: a type case
    rest = [c for c in all_ids if c not in must and c.rsplit("|", 1)[-1] in SUBSET_LABELS
            and "Tukey" not in c.split("|")[0]
            and ROLES.get(c.split("|")[1].replace("ctor.", ""), "") not in ints]
    step = max(1, len(rest) // (n - len(must)))
    return must + rest[::step][: n - len(must)]


TYPE_LABELS = {"str", "complex", "bool", "None", "strings", "num_strings", "bytes", "int1", "int0",
               "str_false", "object", "object_none", "frac", "float_int", "np_bool", "int", "list",
               "generator", "imag", "str_nan", "unknown", "upper", "complex0"}
MAGNITUDE_LABELS = {"huge", "big", "e20", "subnormal", "large", "max", "tiny"}


def category(case_id: str, verdict: str) -> str:
    """Which part of issue 21 a non-passing case belongs to (for the report)."""
    parts = case_id.split("|")
    label = parts[-1]
    role = ROLES.get(parts[1].replace("ctor.", ""), "") if len(parts) == 3 else ""
    if verdict in ("crash", "timeout", "nonfinite") or (
            label in MAGNITUDE_LABELS and role not in ("size_k", "count", "count_or_none", "iters",
                                                       "size")):
        return "finding 5: overflow / underflow / aborts"
    if label in TYPE_LABELS or role in ("rng", "bool", "choice") or (
            label == "huge" and role in ("size_k", "count", "count_or_none", "iters", "size")):
        return "finding 3: strict types (bool/real/int/string, rng)"
    return "other validation (NaN/inf/shape/range)"


def report(before, after) -> str:
    """Markdown: the before and after count tables and the remaining failures by category."""
    tb, totb = summarize(before)
    ta, tota = summarize(after)
    lines = ["# Bad-input sweep (issue 21)", "",
             f"{len(after)} cases over {len({r['id'].split('|')[0] for r in after})} targets; "
             "registry, roles and runner in `tests/bad_input_sweep.py`.", "",
             "## Before (f842644)", "", tb, "", "## After (this branch)", "", ta, "",
             "## Cases not passing, by category", "",
             "| category | before | after |", "|---|---:|---:|"]
    cb = Counter(category(r["id"], r["verdict"]) for r in before if r["verdict"] != "pass")
    ca = Counter(category(r["id"], r["verdict"]) for r in after if r["verdict"] != "pass")
    for k in sorted(set(cb) | set(ca)):
        lines.append(f"| {k} | {cb[k]} | {ca[k]} |")
    lines += ["", "## Remaining failures after", "", "| verdict | case | detail |", "|---|---|---|"]
    for r in after:
        if r["verdict"] != "pass":
            d = r.get("detail", "").replace("|", "/")[:110]
            lines.append(f"| {r['verdict']} | `{r['id']}` | {d} |")
    return "\n".join(lines) + "\n"


def summarize(results):
    by_target = {}
    for r in results:
        by_target.setdefault(r["id"].split("|")[0], Counter())[r["verdict"]] += 1
    total = Counter(r["verdict"] for r in results)
    cols = ("pass",) + BAD_CLASSES
    lines = ["| target | cases | " + " | ".join(cols) + " |",
             "|---|---:|" + "---:|" * len(cols)]
    for t, c in sorted(by_target.items()):
        lines.append(f"| {t} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in cols) + " |")
    lines.append(f"| **total** | {sum(total.values())} | "
                 + " | ".join(str(total[k]) for k in cols) + " |")
    return "\n".join(lines), total


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--subset", action="store_true")
    ap.add_argument("--only", default=None, help="substring filter on case ids")
    ap.add_argument("--reclassify", default=None, help="re-classify a stored JSON and print")
    ap.add_argument("--report", nargs=2, default=None, metavar=("BEFORE", "AFTER"),
                    help="write the markdown report from two stored JSON runs to stdout")
    a = ap.parse_args(argv)
    if a.worker:
        return _worker()
    if a.report:
        before, after = (reclassify(json.load(open(f))) for f in a.report)
        print(report(before, after), end="")
        return None
    if a.reclassify:
        res = reclassify(json.load(open(a.reclassify)))
        print(summarize(res)[0])
        for r in res:
            if r["verdict"] != "pass":
                print(f"{r['verdict']:16s} {r['id']:60s} {r.get('detail', '')[:150]}")
        return None
    ids = [c[0] for c in cases()]
    if a.subset:
        ids = default_subset(ids)
    if a.only:
        ids = [i for i in ids if a.only in i]
    print(f"{len(ids)} cases", file=sys.stderr)
    t0 = time.time()
    res = run_sweep(ids, jobs=a.jobs, timeout=a.timeout)
    table, total = summarize(res)
    print(table)
    print(f"\n{time.time() - t0:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=0)
    for r in res:
        if r["verdict"] != "pass":
            print(f"{r['verdict']:16s} {r['id']:60s} {r.get('detail', '')[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
