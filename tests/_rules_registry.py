"""What the rule tests of issue 21 run on: every public estimator and release function of dplit,
discovered from the modules' `__all__`, each with a tiny valid call, and a generator that records
its first draw.

Discovery is the point: a new estimator (a class with `fit` in some module's `__all__`) or a new
release function (a public function taking `rng`) makes `test_registry_is_complete` fail until it
gets a tiny valid call here, and from then on every rule test covers it.
"""
import importlib
import inspect
import pkgutil
import re
import warnings

import numpy as np

import dplit

try:  # scipy imports this module lazily, and its import draws documentation examples from
    import scipy.stats._new_distributions  # noqa: F401  default_rng: import it before any recorder
except ImportError:
    pass

SKIP_MODULES = {"cli", "book", "_modidx"}


def public_objects():
    "(module name, name, object) for everything in the `__all__` of every dplit module."
    for info in pkgutil.iter_modules(dplit.__path__):
        if info.name in SKIP_MODULES:
            continue
        mod = importlib.import_module(f"dplit.{info.name}")
        for name in getattr(mod, "__all__", []):
            yield info.name, name, getattr(mod, name)


def public_estimators() -> dict:
    "Every class with a `fit` method in some module's `__all__` (a mixin is a base class, not one)."
    return {n: o for _, n, o in public_objects() if inspect.isclass(o) and callable(getattr(o, "fit", None))
            and not n.endswith("Mixin")}


# verification, benchmark, experiment and data-generating helpers take `rng` too, but release nothing
# about a user's data; they are recognised by name
NOT_RELEASE = re.compile(
    r"^(verify_|bench_|audit|run_)|(_experiment|_sweep|_table|_curve|_data|_pvalue|_pvalues|_pair|_pairs"
    r"|_counts|_design|_designs|_instance|_changes|_run|_mc|_domain|_eq6|_like|_datasets)$|^synthetic_")

# public functions taking `rng` that are building blocks or generators of synthetic inputs, not
# releases on a user's data (each is called by a release function below, or makes test data)
BUILDING_BLOCKS = {
    "as_rng", "spawn_rngs",                                     # the generator plumbing itself
    "symmetric_noise", "release_system", "bas_release",         # boosted_adassp internals
    "uniform_bucket_member",                                    # bss samplers
    "samp_agg_sample",                                          # bss baselines / experiments
    "release_statistics",                                       # dpgp internals / diagnostics
    "dp_hyperparameter_learning", "dp_dirichlet_gp_classifier",  # dpgp_hyper: covered by their chapter
    "rejection_sample_rados", "gaussian_edges", "fixed_support_masks",  # dprados
    "block_coefs", "block_supports",                            # dpsis blocks
    "gumbel_noise",                                             # a noise generator, no data
    "sample_signatures",                                        # rados internals
    "restricted_em_sample", "ptr_test", "inside_out_permutation", "make_batches",  # tukey
    "stopping_count",                                           # tuning: the law of K, no data
    "ssp_bootstrap",                                            # inference: post-processing of a release
}


def release_functions() -> dict:
    "Public functions taking `rng` that release something computed on a user's data."
    out = {}
    for _, n, o in public_objects():
        if (inspect.isfunction(o) and "rng" in inspect.signature(o).parameters
                and not NOT_RELEASE.search(n) and n not in BUILDING_BLOCKS):
            out[n] = o
    return out


# ---- tiny data, made once (before any test patches numpy's default_rng) -------------------------
_g = np.random.default_rng(20261126)
X4 = _g.uniform(-0.9, 0.9, size=(40, 4))
Y4 = np.clip(X4 @ np.array([0.6, -0.4, 0.0, 0.0]) + 0.1 * _g.normal(size=40), -0.99, 0.99)
LAB = np.where(X4[:, 0] + 0.3 * _g.normal(size=40) > 0, 1, 0)
X1 = _g.uniform(-2, 2, size=(30, 1))
Y1 = np.clip(np.sin(X1[:, 0]) + 0.1 * _g.normal(size=30), -0.99, 0.99)
XT = _g.normal(size=(300, 1))
YT = 1.0 + 2.0 * XT[:, 0] + 0.3 * _g.normal(size=300)
XP = _g.normal(size=(200, 3))
YP = 1.0 + XP @ np.array([1.0, -0.5, 0.0]) + 0.3 * _g.normal(size=200)
XI = np.column_stack([XT, np.ones(len(XT))])
Z5 = np.linspace(-2, 2, 5)[:, None]

def _bas(**kw):
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    return BoostedAdaSSPRegressor(**kw)


def _accountant():
    from dplit.accountant import BudgetAccountant
    return BudgetAccountant(epsilon=1e9, delta=0.5, tight=False)


# estimator name -> (parameters of a tiny valid fit, X, y, output carrying the noise).
# epsilon is small where the output is a selection, so that two fresh fits rarely agree.
FIT_CASES = {
    "BoostedAdaSSPRegressor": (dict(n_rounds=5), X4, Y4, lambda e: e.coef_),
    "AdaSSPRegressor": (dict(), X4, Y4, lambda e: e.coef_),
    "BestSubsetSelector": (dict(s=2, epsilon=0.01), X4, Y4, lambda e: e.selected_),
    "DPSparseGPRegressor": (dict(inducing_points=5), X1, Y1, lambda e: e.m_),
    "DPKendallSelector": (dict(k=2, epsilon=0.01), X4, Y4, lambda e: e.selected_),
    "SubLassoSelector": (dict(k=2, epsilon=0.01, m=3), X4, Y4, lambda e: e.selected_),
    "DPSISSelector": (dict(k=2, epsilon=0.01), X4, Y4, lambda e: e.support_),
    "OLSRegressor": (dict(), XI, YT, lambda e: e.coef_),
    "PrivateRegressionPipeline": (dict(pipeline="K-BAS", k=1), XP, YP,
                                  lambda e: np.r_[e.selected_, e.regressor_.coef_]),
    "RadoBoostClassifier": (dict(n_rados=10, T=10), X4, LAB, lambda e: e.coef_),
    "AdaBoostExamplesClassifier": (dict(n_examples=20, T=10), X4, LAB, lambda e: e.coef_),
    "DPRadoBoostClassifier": (dict(n_rados=10, T=10), X4, LAB, lambda e: e.coef_),
    "TukeyRegressor": (dict(), XT, YT, lambda e: np.r_[e.n_tilde_]),
    "PrivateClipScaler": (dict(epsilon=0.5, bounds=(-1.0, 1.0), n_grid=101), X4, None,
                          lambda e: e.ranges_),
    "ObjectivePerturbationRegressor": (dict(), X4, Y4, lambda e: e.coef_),
    "DPLogisticRegression": (dict(), X4, LAB, lambda e: e.coef_),
    "SSPRegressor": (dict(n_boot=50), X4, Y4, lambda e: e.coef_),
    "RecipeRegressor": (dict(bounds=(-1.0, 1.0), y_bounds=(-1.0, 1.0)), X4, Y4,
                        lambda e: np.r_[e.regressor_.coef_, e.y_scaler_.ranges_.ravel()]),
    "RecipeClassifier": (dict(bounds=(-1.0, 1.0)), X4, LAB, lambda e: e.classifier_.coef_),
    # meta-estimators: the search draws its own noise (split, runs, stopping); Charged draws none
    # of its own (its noise is the wrapped estimator's) and shares one accountant across clones,
    # so the accountant's budget must outlast every fit of the rule tests
    "PrivateGridSearch": (dict(estimator=_bas(n_rounds=3), param_grid={"n_rounds": [3, 5]}),
                          X4, Y4, lambda e: np.r_[e.best_score_, e.best_estimator_.coef_]),
    "Charged": (dict(estimator=_bas(n_rounds=3), accountant=_accountant()), X4, Y4,
                lambda e: e.estimator_.coef_),
}


def make(name, **over):
    "A fresh estimator of the registry with its tiny-case parameters, overridden by `over`."
    params, *_ = FIT_CASES[name]
    kw = {**params, **over}
    nested = {k: kw.pop(k) for k in list(kw) if "__" in k}      # estimator__epsilon and the like
    est = public_estimators()[name](**kw)
    return est.set_params(**nested) if nested else est


def fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


# release function name -> a tiny valid call as (kwargs), with rng passed by the tests
CALLS = {
    "laplace_mechanism": dict(value=0.5, sensitivity=1.0, epsilon=1.0),
    "gaussian_mechanism": dict(value=0.5, sensitivity=1.0, epsilon=1.0, delta=1e-5),
    "exponential_mechanism": dict(utility=np.array([0.0, 1.0, 2.0]), sensitivity=1.0, epsilon=1.0),
    "peel_top_k": dict(scores=np.array([0.0, 1.0, 2.0, 3.0]), k=2, sensitivity=1.0, epsilon=1.0),
    "discrete_laplace": dict(scale=1.0),
    "discrete_gaussian": dict(sigma2=1.0),
    "discrete_laplace_mechanism": dict(value=0.5, sensitivity=1.0, epsilon=1.0, granularity=0.25),
    "discrete_gaussian_mechanism": dict(value=0.5, sensitivity=1.0, epsilon=1.0, delta=1e-5,
                                        granularity=0.25),
    "dp_kendall": dict(X=X4, y=Y4, k=2, epsilon=1.0),
    "sub_lasso": dict(X=X4, y=Y4, k=2, epsilon=1.0, m=3),
    "dp_sis": dict(X=X4, y=Y4, k=2, epsilon=1.0),
    "two_stage_top_k": dict(X=X4, y=Y4, k=2, epsilon=1.0),
    "lipschitz_top_k": dict(scores=np.array([0.0, 1.0, 2.0, 3.0]), k=2, epsilon=1.0),
    "sequential_peel": dict(scores=np.array([0.0, 1.0, 2.0, 3.0]), k=2, sensitivity=1.0, epsilon=1.0),
    "tukey_regression": dict(X=XI, y=YT, epsilon=1.0, delta=1e-5),
    "private_n_lower_bound": dict(n=100, epsilon=1.0, eta=1e-3),
    "private_count_lower_bound": dict(n=100, epsilon=1.0),
    "boosted_adassp": dict(X=X4, y=Y4, epsilon=1.0, delta=1e-5, n_rounds=5),
    "exact_boosted_adassp": dict(X=X4, y=Y4, epsilon=1.0, delta=1e-5, n_rounds=5),
    "dpgp_inference": dict(X=X1, y=Y1, Z=Z5, sigma=0.1, epsilon=1.0, delta=1e-4),
    "dpgp_inference_heteroscedastic": dict(X=X1, y=Y1, noise_var=np.full(30, 0.01), Z=Z5, epsilon=1.0,
                                           delta=1e-4, R_w=100.0),
    "coinpress_mean": dict(x=Y1, centre=0.0, radius=1.0, rho=0.5),
    "exponential_support_select": dict(X=X4, y=Y4, s=2, epsilon=1.0),
    "top_r_select": dict(X=X4, y=Y4, s=2, epsilon=1.0),
    "mistakes_select": dict(X=X4, y=Y4, s=2, epsilon=1.0, gap_check="warn"),
    "mistakes_ptr_select": dict(X=X4, y=Y4, s=2, epsilon=1.0, epsilon_test=0.5, delta=1e-6),
    "samp_agg_select": dict(X=X4, y=Y4, s=2, epsilon=1.0),
    "mcmc_select": dict(X=X4, y=Y4, s=2, epsilon=1.0, delta=1e-3, n_iter=40),
    "dp_feat_rados": dict(X=np.sign(X4), y=np.where(LAB > 0, 1.0, -1.0), j_star=0, n=5, epsilon=1.0),
    "random_rados": dict(X=X4, y=np.where(LAB > 0, 1.0, -1.0), n=5),
    "private_quantile": dict(x=Y1, q=0.5, epsilon=1.0, bounds=(-1.0, 1.0), n_grid=101),
    "private_range": dict(x=Y1, epsilon=1.0, bounds=(-1.0, 1.0), n_grid=101),
    "objective_perturbation": dict(X=X4, y=Y4, epsilon=1.0, b_x=1.0, b_y=1.0, r=1.0),
    "ssp_release": dict(X=X4, y=Y4, epsilon=1.0, delta=1e-6),
    "random_stopping_select": dict(run=lambda g: (0, float(np.mean(Y1)) + g.laplace()),
                                   epsilon_run=1.0),
}


class RecordingGenerator(np.random.Generator):
    """A PCG64 Generator that records the name of every method called on it (any draw), shares
    its log with the children it spawns, and keeps its initial state for comparison."""

    def __init__(self, seed=0, log=None):
        super().__init__(np.random.PCG64(seed))
        self._log = [] if log is None else log
        self._state0 = self.bit_generator.state

    def __getattribute__(self, name):
        if not name.startswith("_") and name not in ("bit_generator", "spawn", "untouched"):
            object.__getattribute__(self, "_log").append(name)
        return object.__getattribute__(self, name)

    def spawn(self, n):
        return [RecordingGenerator(s, self._log) for s in self.bit_generator.seed_seq.spawn(n)]

    def untouched(self) -> bool:
        return not self._log and self.bit_generator.state == self._state0


class DrawRecorder:
    "Patches numpy's `default_rng` so that every generator dplit makes is a RecordingGenerator."

    def __init__(self, monkeypatch):
        self.made, self.log = [], []
        real = np.random.default_rng

        def fake(seed=None):
            if isinstance(seed, np.random.Generator):
                return seed
            g = RecordingGenerator(real().bit_generator.seed_seq if seed is None else seed, self.log)
            self.made.append(g)
            return g

        monkeypatch.setattr(np.random, "default_rng", fake)

    def untouched(self) -> bool:
        return not self.log and all(g.bit_generator.state == g._state0 for g in self.made)
