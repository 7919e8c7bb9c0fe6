"""Issue 36, leftovers: the estimators of chapters 13, 16, 21, 40 and 50 charge once, after every
check, and a pipeline holding one is planned and charged as a whole; `size=k` spends k releases
for the exponential mechanism, peel and the private quantile and range.

Truths used: the accountant's ledger (empty after a refusal; one line per planned step, equal to
the step's `spend_`), a generator that records every use (0 draws), and k separate releases
charged one by one (the ledger of one `size=k` release must equal theirs: both are the correctly
rounded sum k * epsilon, so equal floats by construction).
"""
import math

import numpy as np
import pytest

import _rules_registry as R
from dplit.accountant import (BudgetAccountant, BudgetExceededError, _same_spend, charged_fit,
                              plan_fit, planned_spend)

MINE = ["TukeyRegressor", "DPSISSelector", "DPSparseGPRegressor", "BestSubsetSelector",
        "PrivateGridSearch"]


pytestmark = pytest.mark.filterwarnings("ignore")  # every test: warnings are not what is tested


def _case(name, **over):
    _, X, y, _ = R.FIT_CASES[name]
    return R.make(name, random_state=0, **over), X, y


def _scaler(relation, seed=1):
    from dplit import PrivateClipScaler
    return PrivateClipScaler(epsilon=0.3, bounds=(-3.0, 3.0), n_grid=61, relation=relation,
                             random_state=seed)


def _pipe(name, scaler_relation=None):
    from dplit import make_pipeline
    est, X, y = _case(name)
    rel = planned_spend(est, X.shape[1]).relation
    return make_pipeline(_scaler(scaler_relation or rel), est), X, y, rel


class _ChargeSpy:
    "Wraps `charge_all` of one accountant: records each call's lines and whether draws preceded."

    def __init__(self, acc, rec):
        self.calls, self.drawn, real = [], [], acc.charge_all

        def spy(items):
            items = list(items)
            self.calls.append((len(items), rec.untouched()))
            self.drawn.append(list(rec.log))            # the generator methods used before it
            return real(items)
        acc.charge_all = spy


# ---- 1. the estimators: planned in a pipeline, charged once before any draw ----------------------

@pytest.mark.parametrize("name", MINE)
def test_pipeline_holding_it_is_planned_then_charged_at_once_before_any_draw(name, monkeypatch):
    pipe, X, y, rel = _pipe(name)
    acc = BudgetAccountant(1e3, 0.5, relation=rel, tight=False)
    plan = plan_fit(acc, pipe, X)
    assert [p.path for p in plan] == [pipe.steps[0][0], pipe.steps[1][0]] and acc.ledger == []
    rec = R.DrawRecorder(monkeypatch)
    spy = _ChargeSpy(acc, rec)
    charged_fit(acc, pipe, X, y)
    if name == "DPSparseGPRegressor":   # its inducing points Z are a public draw made before its
        # charge by design (chapter 40), so that its checks on Z run before it: charged_fit's dry
        # run of step 2 (on a discarded clone) draws them, and nothing else is drawn
        assert [c[0] for c in spy.calls] == [2] and spy.drawn[0] == ["uniform"], spy.drawn
    else:
        assert spy.calls == [(2, True)], spy.calls  # one charge of both steps, before any draw
    assert not rec.untouched()                       # control: the fit did draw, after it
    for line, p, step in zip(acc.ledger, plan, (pipe[0], pipe[1])):
        assert line.spend == p.spend and _same_spend(step.spend_, p.spend), (line, step.spend_)


@pytest.mark.parametrize("name", MINE)
def test_relation_mismatch_in_a_pipeline_refused_with_no_charge_and_no_draw(name, monkeypatch):
    # a substitute estimator after an add/remove scaler; an add/remove one after a substitute
    # scaler: either way an add/remove budget cannot hold one of the two steps
    est, X, _ = _case(name)
    own = planned_spend(est, X.shape[1]).relation
    pipe, X, y, _ = _pipe(name, scaler_relation="add/remove" if own == "substitute"
                          else "substitute")
    acc = BudgetAccountant(1e3, 0.5)                 # add/remove
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="relation='substitute'") as exc:
        charged_fit(acc, pipe, X, y)
    culprit = pipe.steps[1][0] if own == "substitute" else pipe.steps[0][0]
    assert repr(culprit) in str(exc.value) and "nothing was charged" in str(exc.value)
    assert acc.ledger == [] and rec.untouched()
    # the estimator's own accountant refuses the same relation: no charge, no draw
    if own == "substitute":
        est.set_params(accountant=acc)
        with pytest.raises(ValueError, match="substitut"):
            est.fit(X, y)
        assert acc.ledger == [] and rec.untouched()


# bad inputs the estimators' fits refuse (the finding each was added for, in the comment)
BAD = [
    ("BestSubsetSelector", dict(method="exponential", search="exhaustive"), None, "search"),
    ("DPSparseGPRegressor", dict(kernel_bound=1.0), None, "R_k"),      # below |k(z, Z)|: Z drawn
    ("DPSparseGPRegressor", dict(noise_std=1e-300), None, "noise_std"),  # lambda not finite
    ("DPSparseGPRegressor", dict(lengthscale=1e-300), None, "lengthscale"),
    ("DPSparseGPRegressor", dict(input_bounds=(-1e308, 1e308)), None, "input_bounds|d_z|range"),
    ("PrivateGridSearch", dict(param_grid={"n_rounds": [3, 0]}), None, "n_rounds"),
    ("PrivateGridSearch", dict(estimator="tukey", param_grid={"fit_intercept": ["no"]}), None,
     "fit_intercept"),                               # checked only by the run, after the charge
    ("TukeyRegressor", dict(fit_intercept="yes"), None, "fit_intercept"),
    ("DPSISSelector", dict(gamma=1.0), None, "gamma"),
]


def _bad_data(name, what):
    _, X, y, _ = R.FIT_CASES[name]
    X, y = X.copy(), y.copy()
    if what == "X nan":
        X[0, 0] = np.nan
    elif what == "y inf":
        y[-1] = np.inf
    elif what == "rows":
        y = y[:-1]
    return X, y


def _resolve(params):
    from dplit.bss import ExhaustiveSearch
    from dplit.tukey import TukeyRegressor
    made = {"exhaustive": ExhaustiveSearch, "tukey": TukeyRegressor}
    return {k: (made[v]() if isinstance(v, str) and v in made else v) for k, v in params.items()}


@pytest.mark.parametrize("name, params, _, named", BAD,
                         ids=[f"{b[0]}-{next(iter(b[1]))}" for b in BAD])
def test_bad_parameter_refused_with_no_charge(name, params, _, named, monkeypatch):
    est, X, y = _case(name, **_resolve(params))
    rel = planned_spend(R.make(name), X.shape[1]).relation
    acc = BudgetAccountant(1e6, 0.5, relation=rel, tight=False)
    est.set_params(accountant=acc)
    with pytest.raises((ValueError, TypeError), match=named):
        est.fit(X, y)
    assert acc.ledger == [], f"{name}: refused after a charge {acc.ledger}"


@pytest.mark.parametrize("name, params", [
    ("PrivateGridSearch", dict(param_grid={"n_rounds": [3, 0]})),
    ("DPSparseGPRegressor", dict(noise_std=1e-300, inducing_points=np.linspace(-2, 2, 5)[:, None])),
    ("BestSubsetSelector", dict(method="exponential", search="exhaustive")),
])
def test_bad_parameter_refused_before_any_draw(name, params, monkeypatch):
    "With public inducing points given (no Z to draw), a refusal leaves every generator untouched."
    est, X, y = _case(name, **_resolve(params))
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises((ValueError, TypeError)):
        est.fit(X, y)
    assert rec.untouched()


def test_grid_search_checks_each_candidate_on_the_data_before_the_charge(monkeypatch):
    "An inner estimator that refuses the data (|y| > R_y) is refused before the search is charged."
    from dplit.dpgp import DPSparseGPRegressor
    from dplit.tuning import PrivateGridSearch
    acc = BudgetAccountant(1e3, 0.5, relation="substitute")
    Z = np.linspace(-2, 2, 5)[:, None]
    search = PrivateGridSearch(DPSparseGPRegressor(inducing_points=Z), {"lengthscale": [0.5, 1.0]},
                               random_state=0, accountant=acc)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match="R_y"):
        search.fit(R.X1, 10 * R.Y1)
    assert acc.ledger == [] and rec.untouched()
    search.fit(R.X1, R.Y1)                      # control: the same search on good data is charged
    assert len(acc.ledger) == 1 and _same_spend(acc.ledger[0].spend, search.spend_)


@pytest.mark.parametrize("name", MINE)
@pytest.mark.parametrize("what", ["X nan", "y inf", "rows"])
def test_bad_data_refused_with_no_charge_and_no_draw(name, what, monkeypatch):
    est, _, _ = _case(name)
    X, y = _bad_data(name, what)
    rel = planned_spend(est, X.shape[1]).relation
    acc = BudgetAccountant(1e6, 0.5, relation=rel, tight=False)
    est.set_params(accountant=acc)
    rec = R.DrawRecorder(monkeypatch)
    with pytest.raises(ValueError):
        est.fit(X, y)
    assert acc.ledger == [] and rec.untouched()


# ---- 2. size=k spends k releases ---------------------------------------------------------------

def _ledgers_agree(one_line, k_lines, k):
    "One release of k copies charged once, against k single releases charged one by one."
    assert len(one_line.ledger) == 1 and len(k_lines.ledger) == k
    a, b = one_line.spent_basic, k_lines.spent_basic
    assert (a.epsilon, a.delta) == (b.epsilon, b.delta), (a, b)   # round(k eps) both ways


@pytest.mark.parametrize("eps, k", [(0.3, 4), (0.1, 7), (1.0, 1)])
def test_exponential_mechanism_k_draws_spend_k_releases(eps, k):
    from dplit.mechanisms import exponential_mechanism, peel_top_k
    u = np.array([0.0, 1.0, 3.0, 2.0])
    for mech in (lambda s: exponential_mechanism(u, 1.0, eps, rng=0, size=s),
                 lambda s: peel_top_k(u, 2, 1.0, eps, rng=0, size=s)):
        r = mech(k)
        assert len(r.value) == k and r.spend.epsilon == k * eps and r.spend.delta == 0.0
        one, many = BudgetAccountant(100.0), BudgetAccountant(100.0)
        one.charge(r.spend)
        for _ in range(k):
            many.charge(mech(None).spend)
        _ledgers_agree(one, many, k)


@pytest.mark.parametrize("fn", ["quantile", "range"])
def test_private_quantile_and_range_k_draws_charged_as_k_releases(fn):
    from dplit.bounds import private_quantile, private_range
    x = np.random.default_rng(5).normal(size=300)

    def call(eps, size, acc, rng=0):
        if fn == "quantile":
            return private_quantile(x, 0.5, eps, (-4, 4), 81, rng=rng, size=size, accountant=acc)
        return private_range(x, eps, (-4, 4), n_grid=81, rng=rng, size=size, accountant=acc)
    k, eps = 5, 0.15
    one, many = BudgetAccountant(1.0), BudgetAccountant(1.0)
    r = call(eps, k, one)
    for _ in range(k):
        call(eps, None, many)
    assert r.value.shape[0] == k and r.spend.epsilon == k * eps
    _ledgers_agree(one, many, k)
    line = one.ledger[0]
    assert line.charged.epsilon == r.spend.epsilon and f"({k} copies)" in line.label
    # k copies over what is left: refused whole, nothing drawn; one copy fewer fits
    g = R.RecordingGenerator(3)
    acc = BudgetAccountant(1.0)
    with pytest.raises(BudgetExceededError):
        call(0.2, 6, acc, rng=g)                  # 1.2 > 1
    assert acc.ledger == [] and g.untouched()
    call(0.2, 5, acc, rng=g)                      # 1.0: the whole budget, in one line
    assert len(acc.ledger) == 1 and math.isclose(acc.spent_basic.epsilon, 1.0)


@pytest.mark.parametrize("bad", [0, -2, 2.5, "3", True])
def test_bad_size_refused_by_name_before_any_draw_or_charge(bad):
    from dplit.bounds import private_quantile, private_range
    from dplit.mechanisms import exponential_mechanism, peel_top_k
    x, u = np.linspace(-1, 1, 50), np.array([0.0, 1.0, 2.0])
    calls = [lambda g, a: exponential_mechanism(u, 1.0, 1.0, rng=g, size=bad),
             lambda g, a: peel_top_k(u, 2, 1.0, 1.0, rng=g, size=bad),
             lambda g, a: private_quantile(x, 0.5, 0.5, (-2, 2), 41, rng=g, size=bad, accountant=a),
             lambda g, a: private_range(x, 0.5, (-2, 2), n_grid=41, rng=g, size=bad, accountant=a)]
    for call in calls:
        g, acc = R.RecordingGenerator(0), BudgetAccountant(10.0)
        with pytest.raises((ValueError, TypeError), match="size"):
            call(g, acc)
        assert g.untouched() and acc.ledger == []


# ---- 3. charged_fit: the data and parameters are checked before its one charge -----------------

@pytest.mark.parametrize("name", MINE)
@pytest.mark.parametrize("what", ["X nan", "y inf", "rows"])
def test_charged_fit_refuses_bad_data_before_the_charge(name, what, monkeypatch):
    "Before issue 36's leftovers, charged_fit charged the plan, then the fit refused the data."
    from dplit import make_pipeline
    est, _, _ = _case(name)
    X, y = _bad_data(name, what)
    rel = planned_spend(est, X.shape[1]).relation
    for target in (est, make_pipeline(_scaler(rel), est)):
        acc = BudgetAccountant(1e6, 0.5, relation=rel, tight=False)
        rec = R.DrawRecorder(monkeypatch)
        with pytest.raises(ValueError):
            charged_fit(acc, target, X, y)
        assert acc.ledger == [] and rec.untouched(), type(target).__name__


@pytest.mark.parametrize("name, params, _, named", BAD + [
    ("TukeyRegressor", dict(random_state=np.random.default_rng(0)), None, "random_state")],
    ids=[f"{b[0]}-{next(iter(b[1]))}" for b in BAD] + ["TukeyRegressor-generator"])
def test_charged_fit_refuses_a_bad_parameter_before_the_charge(name, params, _, named):
    est, X, y = _case(name)
    est.set_params(**_resolve(params))
    acc = BudgetAccountant(1e6, 0.5, relation=planned_spend(R.make(name), X.shape[1]).relation)
    with pytest.raises((ValueError, TypeError), match=named):
        charged_fit(acc, est, X, y)
    assert acc.ledger == []
