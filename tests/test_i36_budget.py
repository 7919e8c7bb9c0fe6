"""Issue 36 (findings 1-5, 9 and thread safety): one thread-safe ledger, every step charges itself,
pipelines are planned before the first charge, the accountant imports no estimator.

Truths used: a serial run of the same charges (the ledger must accept as many under threads),
the budget itself, the generator's state (0 draws), a fresh interpreter's sys.modules, the AST.
"""
import ast
import math
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import dplit.accountant as A
from dplit.accountant import (BudgetAccountant, BudgetExceededError, Charged, PrivateEstimatorMixin,
                              charged_fit, plan_fit, planned_spend)
from dplit.core import PrivacySpend

ROOT = Path(__file__).resolve().parents[1]
RUNS = 20


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _slow_total(monkeypatch, seconds=2e-4):
    "Widen the window between the check and the write (a race, if any, then shows in every run)."
    real = A._total

    def slow(*a, **k):
        time.sleep(seconds)
        return real(*a, **k)
    monkeypatch.setattr(A, "_total", slow)


def _hammer(acc, spend, n_threads=4, tries=10):
    bar = threading.Barrier(n_threads)

    def work():
        bar.wait()
        for _ in range(tries):
            try:
                acc.charge(spend)
            except BudgetExceededError:
                pass
    ts = [threading.Thread(target=work) for _ in range(n_threads)]
    [t.start() for t in ts]
    [t.join() for t in ts]


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_threads_accept_exactly_the_serial_count(monkeypatch):
    _slow_total(monkeypatch)
    spend = PrivacySpend(0.1, 1e-7, "release")
    serial = BudgetAccountant(1.0, 1e-5, tight=False)
    for _ in range(40):
        try:
            serial.charge(spend)
        except BudgetExceededError:
            pass
    n_serial = len(serial.ledger)
    assert n_serial == 10                       # 10 x 0.1 fits 1.0; the 11th does not
    over = []
    for _ in range(RUNS):
        acc = BudgetAccountant(1.0, 1e-5, tight=False)
        _hammer(acc, spend)
        over.append(len(acc.ledger) - n_serial)
        assert acc.spent.epsilon <= 1.0 * (1 + 2.0**-50)
    assert over == [0] * RUNS, over
    # the same harness catches the unlocked ledger (the code before issue 36): it can fail
    mutant_over = []
    for _ in range(5):
        acc = BudgetAccountant(1.0, 1e-5, tight=False)
        acc._lock = _NoLock()
        _hammer(acc, spend)
        mutant_over.append(len(acc.ledger) - n_serial)
    assert max(mutant_over) > 0, mutant_over


def test_joblib_threading_cross_val_score_never_overspends(monkeypatch):
    from joblib import parallel_backend
    from sklearn.model_selection import cross_val_score
    from dplit import BoostedAdaSSPRegressor
    _slow_total(monkeypatch, 1e-3)
    g = np.random.default_rng(0)
    X = g.uniform(-0.4, 0.4, (160, 3))
    y = np.clip(X.sum(1), -1, 1)
    est = BoostedAdaSSPRegressor(epsilon=0.1, delta=1e-6, n_rounds=2)

    def run(n_jobs):
        acc = BudgetAccountant(100.0, 4e-6, tight=False)     # delta fits 4 of the 8 fits
        with parallel_backend("threading", n_jobs=n_jobs):
            cross_val_score(Charged(est, acc), X, y, cv=8, n_jobs=n_jobs, error_score=np.nan)
        return acc
    n_serial = len(run(1).ledger)
    assert n_serial == 4
    counts = [len(run(4).ledger) for _ in range(RUNS)]
    assert counts == [n_serial] * RUNS, counts


def test_pld_cache_belongs_to_each_accountant():
    from dplit.mechanisms import gaussian_mechanism
    a, b = BudgetAccountant(10.0, 1e-3), BudgetAccountant(10.0, 1e-3)
    assert a._pld is not b._pld
    s1 = gaussian_mechanism(np.zeros(1), 1.0, 0.3, 1e-7, rng=0).spend
    s2 = gaussian_mechanism(np.zeros(1), 1.0, 0.7, 1e-6, rng=0).spend
    for _ in range(3):                           # interleaved: each extends only its own cache
        a.charge(s1), b.charge(s2)
    fresh = lambda acc: A._total([c.charged for c in acc.ledger], acc.relation, True)
    assert a.spent == fresh(a) and b.spent == fresh(b)   # same events, same order: same composition
    assert a.spent.epsilon < b.spent.epsilon


def test_pickled_accountant_refuses_with_a_message():
    import pickle
    acc = BudgetAccountant(1.0)
    copy = pickle.loads(pickle.dumps(acc))
    with pytest.raises(ValueError, match="restored from a pickle"):
        copy.charge(PrivacySpend(0.1, 0.0, "x"))
    assert copy.ledger == [] and acc.ledger == []


def test_front_door():
    import dplit
    from dplit import BudgetAccountant as B, BudgetExceededError as E, Charged as C
    from dplit import charged_fit as cf, private_range as pr, private_quantile as pq
    from dplit import PrivateClipScaler, plan_fit as pf
    import dplit.bounds as bounds
    assert (B, E, C, cf, pf) == (A.BudgetAccountant, A.BudgetExceededError, A.Charged,
                                 A.charged_fit, A.plan_fit)
    assert (pr, pq, PrivateClipScaler) == (bounds.private_range, bounds.private_quantile,
                                           bounds.PrivateClipScaler)
    readme = (ROOT / "README.md").read_text().split("## What you can use", 1)[1]
    for name in ("BudgetAccountant", "BudgetExceededError", "charged_fit", "Charged",
                 "private_range", "PrivateClipScaler"):
        assert f"`{name}`" in readme and name in dplit.__all__, name


def test_private_range_charges_itself_and_states_its_spend():
    from dplit import private_quantile, private_range
    x = np.random.default_rng(1).normal(size=500)
    acc = BudgetAccountant(1.0)
    r = private_range(x, 0.9, (-5, 5), rng=0, accountant=acc)
    assert len(acc.ledger) == 1 and math.isclose(acc.ledger[0].charged.epsilon, r.spend.epsilon)
    assert math.isclose(r.spend.epsilon, 0.9)          # what it drew at, not what was guessed
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    with pytest.raises(BudgetExceededError):
        private_quantile(x, 0.5, 0.2, (-5, 5), rng=g, accountant=acc)
    assert g.bit_generator.state == state and len(acc.ledger) == 1   # refused: nothing drawn
    three = BudgetAccountant(1.0)                    # k copies: one line of k releases' spend
    r = private_range(x, 0.05, (-5, 5), rng=0, size=3, accountant=three)
    assert len(three.ledger) == 1 and three.ledger[0].charged.epsilon == r.spend.epsilon == 3 * 0.05


def _pipeline(add_remove_scaler=True):
    from dplit import DPRadoBoostClassifier, PrivateClipScaler, make_pipeline
    return make_pipeline(PrivateClipScaler(epsilon=0.2, bounds=(-1, 1), n_grid=41, random_state=1),
                         DPRadoBoostClassifier(epsilon=1.0, T=10, n_rados=20, random_state=2))


def _record_generators(monkeypatch):
    made = []
    real = np.random.default_rng

    def rec(*a, **k):
        g = real(*a, **k)
        made.append((a, g))
        return g
    monkeypatch.setattr(np.random, "default_rng", rec)
    return made, real


def test_relation_mismatch_refused_with_no_charge_and_no_draw(monkeypatch):
    g = np.random.default_rng(0)
    X, y = g.uniform(-1, 1, (200, 3)), (g.uniform(size=200) > 0.5).astype(int)
    made, real = _record_generators(monkeypatch)
    acc = BudgetAccountant(5.0, 1e-4)
    with pytest.raises(ValueError) as exc:
        charged_fit(acc, _pipeline(), X, y)
    msg = str(exc.value)
    assert "dpradoboostclassifier" in msg and "relation='substitute'" in msg
    assert acc.ledger == [] and made == []      # no generator was even made: 0 draws
    # the check can fail: steps given the accountant one by one (the way before issue 36) charge
    # and draw for the scaler before the classifier is refused
    steps = _pipeline()
    for _, s in steps.steps:
        s.set_params(accountant=acc)
    made.clear()
    with pytest.raises(ValueError):
        steps.fit(X, y)
    assert len(acc.ledger) == 1
    assert any(gen.bit_generator.state != real(*a).bit_generator.state for a, gen in made if a)


def test_pipeline_and_column_transformer_planned_then_charged_all_or_nothing():
    from sklearn.compose import ColumnTransformer
    from dplit import BoostedAdaSSPRegressor, DPKendallSelector, PrivateClipScaler, make_pipeline
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (300, 4))
    y = np.clip(X[:, 0] + 0.5 * X[:, 1] + 0.1 * g.normal(size=300), -1, 1)
    ct = ColumnTransformer([
        ("a", PrivateClipScaler(epsilon=1.0, bounds=(-2, 2), n_grid=41, random_state=0), [0, 1]),
        ("b", PrivateClipScaler(epsilon=1.0, bounds=(-2, 2), n_grid=41, random_state=1), [2, 3])])
    pipe = make_pipeline(ct, DPKendallSelector(k=2, epsilon=0.5, random_state=2),
                         BoostedAdaSSPRegressor(epsilon=0.5, delta=1e-6, n_rounds=3,
                                                random_state=3))
    small = BudgetAccountant(2.5, 1e-5)                  # 1 + 1 + 0.5 + 0.5 = 3 > 2.5
    with pytest.raises(BudgetExceededError, match="nothing was charged"):
        charged_fit(small, pipe, X, y)
    assert small.ledger == [] and not hasattr(pipe[-1], "coef_")
    acc = BudgetAccountant(3.0, 1e-5)
    plan = plan_fit(acc, pipe, X)
    assert [p.path for p in plan] == ["columntransformer/a", "columntransformer/b",
                                      "dpkendallselector", "boostedadasspregressor"]
    charged_fit(acc, pipe, X, y)
    assert len(acc.ledger) == 4
    assert math.isclose(acc.spent_basic.epsilon, 3.0) and math.isclose(acc.spent.delta, 1e-6)
    fitted = [pipe[0].named_transformers_["a"], pipe[0].named_transformers_["b"], pipe[1], pipe[2]]
    for line, est in zip(acc.ledger, fitted):            # each charge is that step's own spend_
        assert math.isclose(line.charged.epsilon, est.spend_.epsilon)
    c = Charged(pipe, BudgetAccountant(3.0, 1e-5)).fit(X, y)
    assert math.isclose(c.spend_.epsilon, 3.0)


def test_accountant_imports_no_estimator():
    code = ("import sys, dplit.accountant\n"
            "print(sorted(m for m in sys.modules if m.startswith('dplit')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    loaded = set(eval(out))
    assert loaded <= {"dplit", "dplit.accountant", "dplit.core"}, loaded
    tree = ast.parse((ROOT / "dplit" / "accountant.py").read_text())
    targets = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    targets += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    dplit_targets = {t for t in targets if t.startswith("dplit") or t in ("core",)}
    assert dplit_targets <= {"dplit.core", "core"}, dplit_targets     # anywhere, lazy ones too
    assert not hasattr(A, "_PLANS")


def _guide_estimators():
    from dplit import (BoostedAdaSSPRegressor, DPKendallSelector, DPRadoBoostClassifier,
                       ObjectivePerturbationRegressor, PrivateClipScaler)
    return [PrivateClipScaler(epsilon=0.5, bounds=(-2, 2), n_grid=41),
            DPKendallSelector(k=2, epsilon=0.5),
            BoostedAdaSSPRegressor(epsilon=0.5, delta=1e-6, n_rounds=3),
            DPRadoBoostClassifier(epsilon=1.0, T=10, n_rados=20),
            ObjectivePerturbationRegressor(epsilon=0.5)]


def test_guide_estimators_use_the_template_and_declare_their_spend():
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (200, 4))
    y = np.clip(X[:, 0] + 0.3 * g.normal(size=200), -1, 1)
    for est in _guide_estimators():
        assert isinstance(est, PrivateEstimatorMixin), type(est).__name__
        target = (y > 0).astype(int) if "Classifier" in type(est).__name__ else y
        plan = planned_spend(est, 4)
        est.fit(X, target)
        assert A._same_spend(plan, est.spend_), (type(est).__name__, plan, est.spend_)


THREADS_PROBE = r"""
import threading, warnings, numpy as np, numba
warnings.simplefilter("ignore")
from dplit import (BoostedAdaSSPRegressor, DPKendallSelector, DPRadoBoostClassifier,
                   ObjectivePerturbationRegressor, PrivateClipScaler, BudgetAccountant)
g = np.random.default_rng(0)
X = g.uniform(-1, 1, (2000, 12)); y = np.clip(X[:, 0] + 0.3 * g.normal(size=2000), -1, 1)
make = [lambda a: PrivateClipScaler(epsilon=0.5, bounds=(-2, 2), n_grid=41, accountant=a),
        lambda a: DPKendallSelector(k=3, epsilon=0.5, accountant=a),
        lambda a: BoostedAdaSSPRegressor(epsilon=0.5, delta=1e-6, n_rounds=3, accountant=a),
        lambda a: DPRadoBoostClassifier(epsilon=0.5, T=10, n_rados=20, accountant=a),
        lambda a: ObjectivePerturbationRegressor(epsilon=0.5, accountant=a)]
acc = BudgetAccountant(1000.0, 1e-3, relation="substitute", tight=False)
errors = []
def work(i):
    try:
        for m in make:
            est = m(acc)
            t = (y > 0).astype(int) if "Classifier" in type(est).__name__ else y
            est.fit(X, t)
    except Exception as e:
        errors.append(repr(e))
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(len(acc.ledger), numba.threading_layer(), errors)
"""


@pytest.mark.parametrize("layer", [None, "workqueue"])
def test_each_guide_estimator_fits_from_four_threads(layer):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_THREADING_LAYER", None)
    if layer:
        env["NUMBA_THREADING_LAYER"] = layer     # the unsafe layer: the guard serialises launches
    r = subprocess.run([sys.executable, "-c", THREADS_PROBE], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    n, used, errors = r.stdout.split(" ", 2)
    assert int(n) == 4 * 5 and errors.strip() == "[]", r.stdout
    assert used == (layer or "omp") or (layer is None and used == "tbb"), used


def test_logfact_table_never_shrinks_under_threads():
    import dplit.lipschitz as L
    from scipy import special
    monkey = L._LOGFACT
    try:
        L._LOGFACT = np.zeros(0)
        bad, bar = [], threading.Barrier(8)

        def work(seed):
            rng = np.random.default_rng(seed)
            bar.wait()
            for _ in range(200):
                d = int(rng.integers(1, 5000))
                t = L._logfact(d)
                if len(t) < d + 2:
                    bad.append(d)
        ts = [threading.Thread(target=work, args=(s,)) for s in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        assert bad == []
        t = L._logfact(10)
        assert np.allclose(t[:12], special.gammaln(np.arange(12) + 1.0), rtol=0, atol=1e-12)
    finally:
        L._LOGFACT = monkey
