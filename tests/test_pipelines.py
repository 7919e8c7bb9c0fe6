"""Plumbing of the seven pipelines (dplit.pipelines) with a NON-PRIVATE STAND-IN regressor.

The stand-in below is ordinary least squares that merely *records* the budget it is handed; it is not private and
is used only here, to test what the pipelines do around the regressor (budget split, composition, intercept,
models from n_tilde, -inf for a refused fit, reproducibility). The real regressors are exercised by the chapter's
verify checks (pipelines_budget_exact, pipelines_intercept_never_selected)."""
import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

from dplit.core import PrivacySpend
from dplit.pipelines import (PAPER_DELTA, PAPER_EPSILON, PIPELINES, PIPELINE_PARTS, PRIVATE_PIPELINES,
                             PrivateRegressionPipeline, budget_split, median_table, model_counts, paper_table,
                             positive_counts, r2_experiment, rank_counts, synthetic_regression)


class NonPrivateStandIn:
    "NOT PRIVATE. Least squares that records the (epsilon, delta, n_tilde) it was given. Tests of plumbing only."

    def __init__(self, epsilon, delta, n_tilde, random_state, fail=False):
        self.epsilon, self.delta, self.n_tilde, self.random_state, self.fail = epsilon, delta, n_tilde, random_state, fail

    def fit(self, X, y):
        self.X_seen_ = X.copy()
        self.coef_ = np.linalg.lstsq(X, y, rcond=None)[0]
        self.spend_ = PrivacySpend(self.epsilon, self.delta, "NON-PRIVATE STAND-IN (tests only)", "add/remove")
        self.ptr_passed_ = not self.fail
        return self

    def predict(self, X):
        return X @ self.coef_


def standin(epsilon, delta, n_tilde, random_state):
    return NonPrivateStandIn(epsilon, delta, n_tilde, random_state)


def failing_standin(epsilon, delta, n_tilde, random_state):
    return NonPrivateStandIn(epsilon, delta, n_tilde, random_state, fail=True)


def flaky_standin(epsilon, delta, n_tilde, random_state):
    "Fails for about half the seeds (a function of the int seed the pipeline draws, only)."
    fail = np.random.default_rng(random_state).random() < 0.5
    return NonPrivateStandIn(epsilon, delta, n_tilde, random_state, fail=fail)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 9))
    y = 10 + X[:, :3] @ np.array([1.0, -0.7, 0.5]) + 0.3 * rng.normal(size=1500)
    return X, y


@pytest.mark.parametrize("name", PRIVATE_PIPELINES)
def test_budget_composes_exactly(data, name):
    X, y = data
    rng = np.random.default_rng(1)
    for eps, dlt in [(PAPER_EPSILON, PAPER_DELTA)] + [(float(np.exp(rng.uniform(-4, 2))), 1e-6) for _ in range(5)]:
        est = PrivateRegressionPipeline(pipeline=name, k=3, epsilon=eps, delta=dlt, regressor=standin, random_state=2).fit(X, y)
        assert est.spend_.epsilon == eps and est.spend_.delta == dlt and est.spend_.relation == "add/remove"
        selector, regressor, counts = PIPELINE_PARTS[name]
        coupled = counts and regressor == "tukey"          # n_tilde > n is charged to delta
        assert len(est.parts_) == 1 + counts + coupled + (selector is not None)
        assert math.fsum(p.epsilon for p in est.parts_) == eps
        assert math.fsum(p.delta for p in est.parts_) == dlt
        assert est.regressor_.delta == (dlt - est.parts_[1].delta if coupled else dlt)


def test_budget_split_table():
    e = PAPER_EPSILON
    assert budget_split("BAS") == dict(count=0.0, selection=0.0, regression=e, eta=0.0, count_delta=0.0,
                                       delta=PAPER_DELTA)
    assert abs(budget_split("Tukey")["count"] - 0.05 * e) <= math.ulp(e) and budget_split("Tukey")["selection"] == 0.0
    assert budget_split("K-BAS")["count"] == 0.0 and abs(budget_split("K-BAS")["selection"] - 0.05 * e) <= math.ulp(e)
    for name in ("L-BAS", "L-Tukey", "K-Tukey"):
        b = budget_split(name)
        assert abs(b["count"] - 0.05 * e) <= math.ulp(e) and b["count"] == b["selection"]
        assert abs(b["regression"] - 0.9 * e) < 1e-15
    assert budget_split("L-BAS")["eta"] == 1e-4 and budget_split("L-BAS")["count_delta"] == 0.0
    for name in ("Tukey", "L-Tukey", "K-Tukey"):            # eta = delta e^{-eps'} / 10 costs delta / 10
        b = budget_split(name)
        assert abs(b["count_delta"] - PAPER_DELTA / 10) < 1e-20 and math.fsum([b["count_delta"], b["delta"]]) == PAPER_DELTA
    with pytest.raises(ValueError, match="eta"):
        budget_split("K-Tukey", eta=1e-4)                   # the paper's eta exceeds delta = 1e-5


@pytest.mark.parametrize("name", ["L-BAS", "L-Tukey", "K-BAS", "K-Tukey"])
def test_intercept_never_selected_always_added(data, name):
    X, y = data
    for seed in range(5):
        est = PrivateRegressionPipeline(pipeline=name, k=4, regressor=standin, random_state=seed).fit(X, y)
        assert len(set(est.selected_.tolist())) == 4 and est.selected_.max() < X.shape[1]
        D = est.regressor_.X_seen_
        assert D.shape[1] == 5 and np.all(D[:, -1] == 1.0)
        np.testing.assert_array_equal(D[:, :-1], X[:, est.selected_])


def test_no_selection_sees_all_columns(data):
    X, y = data
    est = PrivateRegressionPipeline(pipeline="Tukey", regressor=standin, random_state=0).fit(X, y)
    assert est.regressor_.X_seen_.shape[1] == X.shape[1] + 1


def test_models_are_a_function_of_n_tilde(data):
    X, y = data
    p, k = X.shape[1], 4
    for seed in range(5):
        e = PrivateRegressionPipeline(pipeline="L-Tukey", k=k, regressor=standin, random_state=seed).fit(X, y)
        assert e.n_models_ == model_counts("L-Tukey", e.n_tilde_, p, k, "columns")
        assert e.n_models_["selection"] == math.floor(e.n_tilde_ / (p + 1))
        assert e.n_models_["regression"] == math.floor(e.n_tilde_ / (k + 1))
        assert e.regressor_.n_tilde == e.n_tilde_
        e2 = PrivateRegressionPipeline(pipeline="L-BAS", k=k, m_rule="paper", regressor=standin, random_state=seed).fit(X, y)
        assert e2.n_models_["selection"] == math.floor(e2.n_tilde_ / k)
        e3 = PrivateRegressionPipeline(pipeline="Tukey", regressor=standin, random_state=seed).fit(X, y)
        assert e3.n_models_["regression"] == math.floor(e3.n_tilde_ / (p + 1))
    # the same n_tilde gives the same counts whatever the data
    assert model_counts("K-Tukey", 1000.0, 9, 4) == model_counts("K-Tukey", 1000.0, 9, 4) == dict(selection=None, regression=200)
    assert model_counts("L-BAS", -3.0, 9, 4)["selection"] == 1          # at least one subset
    assert model_counts("Tukey", 5.0, 9)["regression"] == 0


def test_n_tilde_is_a_lower_bound_mostly(data):
    X, y = data
    nt = [PrivateRegressionPipeline(pipeline="Tukey", regressor=standin, random_state=s).fit(X, y).n_tilde_ for s in range(60)]
    assert np.mean(np.array(nt) <= len(y)) == 1.0                       # P(n_tilde > n) < 1e-6
    eps_n = 0.05 * math.log(3)
    eta = 0.1 * 1e-5 * math.exp(-eps_n)
    assert abs(np.median(nt) - (len(y) - math.log(1 / (2 * eta)) / eps_n)) < 15      # 5 standard errors


def test_same_seed_same_output(data):
    X, y = data
    for name in PIPELINES:
        a = PrivateRegressionPipeline(pipeline=name, k=3, regressor=standin, random_state=7).fit(X, y)
        b = PrivateRegressionPipeline(pipeline=name, k=3, regressor=standin, random_state=7).fit(X, y)
        np.testing.assert_array_equal(a.selected_, b.selected_)
        np.testing.assert_array_equal(a.predict(X[:20]), b.predict(X[:20]))
        assert a.n_tilde_ == b.n_tilde_


def test_failed_regression_scores_minus_inf(data):
    X, y = data
    est = PrivateRegressionPipeline(pipeline="K-Tukey", k=3, regressor=failing_standin, random_state=0).fit(X, y)
    assert est.failed_ and est.score(X, y) == -math.inf
    with pytest.raises(RuntimeError, match="PTR"):
        est.predict(X)


def test_nondp_is_sklearn_ols(data):
    X, y = data
    ours = PrivateRegressionPipeline(pipeline="NonDP").fit(X[:1000], y[:1000])
    ref = LinearRegression().fit(X[:1000], y[:1000])
    # Two least-squares solvers agree to their forward error: a backward-stable solve moves the
    # coefficients by about eps (kappa + kappa^2 ||r|| / (||A|| ||b||)) relatively (Golub & Van Loan
    # 5.3.8), A the centred design with an intercept column; predictions move by ||A_test|| ||db||.
    A = np.column_stack([X[:1000], np.ones(1000)])
    kappa = np.linalg.cond(A)
    b, *_ = np.linalg.lstsq(A, y[:1000], rcond=None)
    res = np.linalg.norm(y[:1000] - A @ b)
    rel = 16 * np.finfo(float).eps * (kappa + kappa**2 * res / (np.linalg.norm(A, 2) * np.linalg.norm(b)))
    At = np.column_stack([X[1000:], np.ones(len(X) - 1000)])
    bound = rel * np.linalg.norm(b) * np.abs(At).sum(axis=1).max()
    np.testing.assert_allclose(ours.predict(X[1000:]), ref.predict(X[1000:]), rtol=0, atol=bound)
    assert ours.spend_ is None and not ours.failed_


def test_sklearn_clone_and_params():
    est = PrivateRegressionPipeline(pipeline="L-BAS", k=4, random_state=3)
    c = clone(est)
    assert c.get_params() == est.get_params()


def test_experiment_medians_keep_minus_inf_and_do_not_depend_on_n_jobs():
    ds = {"s": synthetic_regression("sparse", n=600, p=12, s=3, rng=0)}
    regs = {"bas": standin, "tukey": flaky_standin}
    pipes = ("NonDP", "BAS", "Tukey", "K-BAS", "K-Tukey")              # SubLasso is slow and adds nothing here
    a = r2_experiment(ds, pipelines=pipes, ks=(3,), trials=10, rng=5, regressors=regs, progress=False)
    b = r2_experiment(ds, pipelines=pipes, ks=(3,), trials=10, rng=5, regressors=regs, progress=False, n_jobs=2)
    cols = ["dataset", "trial", "pipeline", "k", "r2", "failed"]
    assert a[cols].equals(b[cols])
    tab = median_table(a, 3)
    for name in ("Tukey", "K-Tukey"):
        r = a[a.pipeline == name]
        assert (tab.loc["s", name] == -math.inf) == (r.failed.sum() >= 5)
        assert tab.loc["s", name] == np.median(r.r2)
    assert list(tab.columns) == list(pipes)


def test_median_table_drops_datasets_without_k():
    ds = {"small": synthetic_regression("sparse", n=400, p=6, s=2, rng=0),
          "big": synthetic_regression("sparse", n=400, p=12, s=2, rng=1)}
    res = r2_experiment(ds, ks=(5, 10), trials=2, rng=0, regressors={"bas": standin, "tukey": standin}, progress=False)
    assert list(median_table(res, 10).index) == ["big"]
    assert sorted(median_table(res, 5).index) == ["big", "small"]


def test_counts_on_paper_table():
    r5, pos5 = rank_counts(paper_table(5)), positive_counts(paper_table(5))
    assert r5.loc["K-Tukey", "first"] == 12 and r5.loc["K-Tukey"].sum() == 17
    assert pos5.sum() == 41 and positive_counts(paper_table(10)).sum() == 19
    assert paper_table(5).shape == (25, 7) and paper_table(10).shape == (21, 7)


def test_coupling_charge_never_below_its_cost():
    "delta for n_tilde > n is eta e^{eps'} rounded up; exact truth in 60 digits; nearest rounding is caught."
    from decimal import Decimal, localcontext
    rng = np.random.default_rng(3)
    under = mutant_under = 0
    with localcontext() as ctx:
        ctx.prec = 60
        for _ in range(3000):
            eps, dlt = float(np.exp(rng.uniform(-5, 3))), float(10 ** rng.uniform(-10, -2))
            b = budget_split("K-Tukey", eps, dlt)
            cost = Decimal(b["eta"]) * Decimal(b["count"]).exp()
            under += Decimal(b["count_delta"]) < cost
            q = math.ulp(dlt)
            mutant_under += Decimal(round(b["eta"] * math.exp(b["count"]) / q) * q) < cost
    assert under == 0 and mutant_under > 0, (under, mutant_under)


@pytest.mark.parametrize("name", ["Tukey", "K-Tukey"])
def test_real_tukey_uses_the_pipelines_n_tilde_and_m(data, name):
    X, y = data
    est = PrivateRegressionPipeline(pipeline=name, k=3, random_state=4).fit(X, y)
    assert est.regressor_.n_models_ == est.n_models_["regression"]
    assert est.regressor_.n_tilde == est.n_tilde_
    w = X.shape[1] + 1 if name == "Tukey" else 4
    assert est.n_models_["regression"] == int(est.n_tilde_ // w)
