"""The recipes of nbs/19_head_to_head.ipynb: input validated before the first draw, the spend within
the budget (and its parts where they are said to go), clipping announced, and no test R² below -1
on real tables at small size."""
import math
import warnings

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant, BudgetExceededError
from dplit.boosted_adassp import gdp_mu
from dplit.core import ClippingWarning
from dplit.logistic import _noise, logistic_calibration
from dplit.recipes import (RecipeClassifier, RecipeRegressor, _substitute_addremove_epsilon,
                           logistic_choice, recipe_rule)

from _rules_registry import DrawRecorder

g = np.random.default_rng(7)
X = g.uniform(-1, 1, (300, 4))
y = X @ np.array([1.0, -0.5, 0.0, 0.3]) + 0.2 * g.normal(size=300)
LAB = (X[:, 0] + 0.3 * g.normal(size=300) > 0).astype(int)
REG = dict(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0))


BAD_REGRESSOR = [
    (dict(epsilon=0.0), ValueError, "epsilon"), (dict(epsilon=math.nan), ValueError, "epsilon"),
    (dict(epsilon="1"), TypeError, "epsilon"), (dict(delta=0.0), ValueError, "delta"),
    (dict(delta=1.0), ValueError, "delta"), (dict(bounds=None), ValueError, "bounds"),
    (dict(bounds=(2.0, -2.0)), ValueError, "bounds"), (dict(bounds=[(-1, 1)] * 3), ValueError,
                                                      "bounds"),
    (dict(y_bounds=None), ValueError, "y_bounds"), (dict(y_bounds=(0, math.inf)), ValueError,
                                                    "y_bounds"),
    (dict(relation="neighbours"), ValueError, "relation"),
    (dict(rule={"y_share": 1.5}), ValueError, "y_share"), (dict(rule={"k": 3}), ValueError, "rule"),
    (dict(rule={"x_share": 0.5, "y_share": 0.5}), ValueError, "share"),
]


@pytest.mark.parametrize("kw, err, name", BAD_REGRESSOR)
def test_regressor_refuses_before_any_draw(kw, err, name, monkeypatch):
    rec = DrawRecorder(monkeypatch)
    acc = BudgetAccountant(10.0, 1e-3, relation="add/remove", tight=False)
    with pytest.raises(err, match=name):
        RecipeRegressor(**{**REG, "accountant": acc, **kw}).fit(X, y)
    assert rec.untouched() and acc.spent.epsilon == 0


@pytest.mark.parametrize("Xb, yb, name", [
    (np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), y, "X"),
    (X, np.where(np.arange(len(y)) == 3, np.inf, y), "y"), (X[:1], y[:1], "X"),
    (X, y[:-1], "X and y")])
def test_bad_data_refused_before_any_draw(Xb, yb, name, monkeypatch):
    rec = DrawRecorder(monkeypatch)
    with pytest.raises(ValueError, match=name):
        RecipeRegressor(**REG).fit(Xb, yb)
    with pytest.raises(ValueError, match=name):
        RecipeClassifier(bounds=(-2.0, 2.0)).fit(Xb, (yb > 0).astype(int) if name != "y" else yb)
    assert rec.untouched()


@pytest.mark.parametrize("kw, err, name", [
    (dict(relation="add/remove"), ValueError, "relation"), (dict(delta=-1e-5), ValueError, "delta"),
    (dict(bounds=None), ValueError, "bounds"), (dict(rule={"C": 1.0, "n_rounds": 3}), ValueError,
                                                "rule"),
    (dict(classes=[0]), ValueError, "classes")])
def test_classifier_refuses_before_any_draw(kw, err, name, monkeypatch):
    rec = DrawRecorder(monkeypatch)
    with pytest.raises(err, match=name):
        RecipeClassifier(**{"bounds": (-2.0, 2.0), **kw}).fit(X, LAB)
    assert rec.untouched()


def test_overspend_is_refused_before_any_draw(monkeypatch):
    rec = DrawRecorder(monkeypatch)
    acc = BudgetAccountant(0.9, 1e-5, relation="substitute", tight=False)
    with pytest.raises(BudgetExceededError):
        RecipeRegressor(**REG, epsilon=1.0, relation="substitute", accountant=acc).fit(X, y)
    with pytest.raises(BudgetExceededError):
        RecipeClassifier(bounds=(-2.0, 2.0), epsilon=1.0, accountant=acc).fit(X, LAB)
    assert rec.untouched()


@pytest.mark.parametrize("eps, dlt, relation", [
    (0.5, 1e-5, "substitute"), (1.0, 1e-6, "add/remove"), (3.0, 1e-5, "substitute")])
def test_regressor_spend_within_budget_and_where_it_goes(eps, dlt, relation):
    acc = BudgetAccountant(eps, dlt, relation=relation, tight=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        m = RecipeRegressor(**REG, epsilon=eps, delta=dlt, relation=relation, accountant=acc,
                            random_state=0).fit(X, y)
    s = m.spend_
    # basic composition of a pure part and an (eps, delta) part: at most the budget, up to the
    # rounding of one float addition
    assert s.relation == relation and s.delta <= dlt and s.epsilon <= eps * (1 + 1e-12)
    assert acc.spent.epsilon <= eps * (1 + 1e-12)
    n = len(y) if relation == "substitute" else None  # n is public under substitution only
    rule = recipe_rule("regression", eps, 4, n)  # with n: X's share already resolved
    share = rule["y_share"] + (rule["x_share"] if n or eps >= rule["x_min_epsilon_no_n"] else 0.0)
    eps_model = eps - share * eps
    reg = m.regressor_.spend_  # the inner Boosted AdaSSP's own (add/remove) record
    assert reg.relation == "add/remove" and reg.delta == dlt
    if relation == "add/remove":
        assert reg.epsilon == pytest.approx(eps_model, rel=1e-12)
    else:  # substitution: half the mu of (eps_model, delta); mu is a smooth function of epsilon
        assert gdp_mu(reg.epsilon, dlt) == pytest.approx(gdp_mu(eps_model, dlt) / 2, rel=1e-8)
        assert reg.epsilon < eps_model


def test_classifier_spend_within_budget():
    acc = BudgetAccountant(1.0, 1e-5, relation="substitute", tight=False)
    m = RecipeClassifier(bounds=(-2.0, 2.0), accountant=acc, random_state=0).fit(X, LAB)
    assert m.spend_.relation == "substitute" and m.spend_.epsilon <= 1.0 * (1 + 1e-12)
    assert m.classifier_.spend_.epsilon <= 1.0 and m.classifier_.spend_.relation == "substitute"
    assert acc.spent.epsilon <= 1.0 * (1 + 1e-12)


def test_substitute_conversion_halves_mu():
    for eps in (0.1, 0.5, 1.0, 3.0, 8.0):
        e2 = _substitute_addremove_epsilon(eps, 1e-5)
        assert 0 < e2 < eps
        assert gdp_mu(e2, 1e-5) == pytest.approx(gdp_mu(eps, 1e-5) / 2, rel=1e-8)


def test_regressor_clipping_is_announced_once():
    Xo = X.copy()
    Xo[0, 0] = 50.0  # outside the schema
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        RecipeRegressor(**REG, random_state=0).fit(Xo, y)
    clip = [x for x in w if issubclass(x.category, ClippingWarning)]
    assert len(clip) == 1 and "entries of X" in str(clip[0].message)
    assert "not a release" in str(clip[0].message)


def test_classifier_clipping_is_announced_once():
    "X is clipped to its released 5%/95% ranges on every fit: one warning per fit, no count."
    Xo = X.copy()
    Xo[0, 0] = 50.0  # outside the schema too
    for data in (X, Xo):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            RecipeClassifier(bounds=(-2.0, 2.0), random_state=0).fit(data, LAB)
        clip = [x for x in w if issubclass(x.category, ClippingWarning)]
        assert len(clip) == 1 and "entries of X" in str(clip[0].message)
        assert "not a release" in str(clip[0].message)


def test_two_fits_never_share_noise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        a = RecipeRegressor(**REG).fit(X, y).regressor_.coef_
        b = RecipeRegressor(**REG).fit(X, y).regressor_.coef_
    assert not np.allclose(a, b)


@pytest.mark.parametrize("name", ["diabetes", "abalone", "mathach"])
def test_no_r2_below_minus_one_on_real_tables(name):
    "Small size: at most 1500 rows, the smallest budget of the head-to-head, three splits."
    from dplit.recipes import HEAD_TO_HEAD_TABLES, head_to_head_splits, run_recipes
    Xt, yt = HEAD_TO_HEAD_TABLES[name][1]()
    keep = np.random.default_rng(0).permutation(len(yt))[:1500]
    rows = run_recipes([name], (0.5,), splits=3, data={name: (Xt[keep], yt[keep])})
    assert min(rows[0]["scores"]) >= -1.0, rows[0]["scores"]


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("share", [0.05, 0.2, 0.5])
def test_logistic_choice_gives_the_jacobian_its_share(eps, share):
    "C is set so that the calibration's own Jacobian share is share * eps (pure and Gaussian)."
    for noise, dlt in (("pure", 0.0), ("gauss", 1e-5)):
        m = logistic_choice(eps, 1e-5, 5, share, noise)
        cal = logistic_calibration(eps, m["delta"], C=m["C"])
        assert m["delta"] == dlt
        # below eps / 2 no extra ridge is added, so the share is exact up to exp/log rounding
        assert cal["eps_jac"] == pytest.approx(share * eps, rel=1e-9) and cal["extra"] == 0.0


@pytest.mark.parametrize("d", [3, 60])
def test_logistic_choice_auto_takes_the_smaller_noise(d):
    """'auto' picks the release whose noise has the smaller mean squared norm, checked against draws
    of both noises (20,000 each: the two means differ by far more than their sampling error, 1-2%)."""
    g = np.random.default_rng(3)
    norms = {}
    for noise in ("pure", "gauss"):
        m = logistic_choice(1.0, 1e-5, d, 0.2, noise)
        cal = logistic_calibration(1.0, m["delta"], C=m["C"])
        norms[noise] = np.mean(np.sum(_noise(cal, d + 1, g, 20_000) ** 2, axis=1))
    auto = logistic_choice(1.0, 1e-5, d, 0.2, "auto")
    smaller = min(norms, key=norms.get)
    assert max(norms.values()) > 1.2 * min(norms.values())  # the pick is not a coin flip
    assert (auto["delta"] == 0.0) == (smaller == "pure")
    assert logistic_choice(1.0, 0.0, d, 0.2, "auto")["delta"] == 0.0  # delta 0: pure only


@pytest.mark.parametrize("kw, name", [
    (dict(jac_share=0.0), "jac_share"), (dict(jac_share=0.7), "jac_share"),
    (dict(jac_share=True), "jac_share"), (dict(noise="laplace"), "noise"),
    (dict(epsilon=0.0), "epsilon"), (dict(delta=1.0), "delta"), (dict(n_features=0), "n_features"),
    (dict(noise="gauss", delta=0.0), "delta")])
def test_logistic_choice_refuses_bad_input(kw, name):
    args = {**dict(epsilon=1.0, delta=1e-5, n_features=4), **kw}
    with pytest.raises((ValueError, TypeError), match=name):
        logistic_choice(**args)


def test_classifier_spend_names_the_release_it_chose():
    "d = 4: the pure release is chosen, the spend carries no delta and the model's C is the rule's."
    m = RecipeClassifier(bounds=(-2.0, 2.0), epsilon=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        m.fit(X, LAB)
    rule = recipe_rule("classification", 1.0, 4)
    # the rule's choice at the epsilon the model got (one function on one float: equal C exactly);
    # that epsilon is the model's share, up to one float subtraction
    choice = logistic_choice(m.classifier_.epsilon, 1e-5, 4)
    assert m.spend_.delta == 0.0 and m.classifier_.delta == 0.0
    assert m.classifier_.C == choice["C"] and m.classifier_.epsilon == pytest.approx(
        (1 - rule["x_share"]) * 1.0, rel=1e-12)


@pytest.mark.parametrize("est, which", [
    (lambda acc: RecipeRegressor(bounds=(-1e308, 1e308), y_bounds=(-5, 5), accountant=acc), "bounds"),
    (lambda acc: RecipeRegressor(bounds=(-5, 5), y_bounds=(-1e308, 1e308), accountant=acc),
     "y_bounds"),
    (lambda acc: RecipeClassifier(bounds=(-1e308, 1e308), accountant=acc), "bounds"),
    (lambda acc: RecipeClassifier(bounds=(-5, 5), epsilon=1e-300, accountant=acc), "calibration"),
])
def test_absurd_bounds_and_budgets_refused_before_the_charge(est, which):
    "A width that overflows, or a noise scale that does, is a clear ValueError with 0 charges."
    from dplit import BudgetAccountant
    g = np.random.default_rng(0)
    X = g.normal(size=(200, 3))
    y = X[:, 0] if which != "calibration" and "Regressor" in repr(est(None)) else (X[:, 0] > 0) * 1
    acc = BudgetAccountant(10.0, 1e-3)
    with pytest.raises(ValueError, match=which):
        est(acc).fit(X, y)
    assert acc.ledger == []
