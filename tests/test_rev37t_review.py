"""Review of issue 37's fifth pass (nbs/19_head_to_head.ipynb): the checks it lacked.

1. A rule the steps cannot run (an `x_n_grid` or `n_grid` numpy cannot allocate, `y_share` = 0)
   was refused only by the step, after the recipe had charged its accountant: the recipes now
   build every grid they will use, and refuse y_share = 0, before the charge.
2. The paired standard error of the tuning's differences: the three budgets of one table reuse the
   same 75/25 splits, so the (table, epsilon) rows are not independent; the standard error now
   treats (table, split) as the independent unit. Checked by Monte Carlo on cells with a shared
   split effect, where the rows-independent formula is too small by a stated factor.
3. The saved tuning (bench/tuning_results.json) is every candidate of TUNING_GRID at
   TUNING_SPLITS splits, consistent with itself, its best the rule, and a runner-up's first split
   this code's (the chapter checks the rule's candidate only, and only in its slow run).
"""
import math
import warnings

import numpy as np
import pytest

from dplit.accountant import BudgetAccountant, charged_fit
from dplit.bounds import PrivateClipScaler
from dplit.recipes import RecipeClassifier, RecipeRegressor

from _rules_registry import DrawRecorder

HUGE = 10 ** 30  # np.linspace refuses it ("Maximum allowed size exceeded"): no allocation tried


def _xy(n=300, d=3):
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (n, d))
    return X, (X[:, 0] > 0).astype(int), X[:, 0] - X[:, 1]


def _recipe(task, rule, acc):
    if task == "classification":
        return RecipeClassifier(bounds=(-2.0, 2.0), rule=rule, accountant=acc)
    return RecipeRegressor(bounds=(-2.0, 2.0), y_bounds=(-5.0, 5.0), relation="substitute",
                           rule=rule, accountant=acc)


@pytest.mark.parametrize("task, rule", [
    ("classification", dict(x_n_grid=HUGE)),   # the classifier's X ranges on a grid
    ("regression", dict(x_n_grid=HUGE, x_min_epsilon=0.0, x_spread=0.0)),  # X spent: its grid
    ("regression", dict(n_grid=HUGE)),         # y's grid
    ("regression", dict(y_share=0.0))])        # y's range and median with no budget
def test_rule_the_steps_cannot_run_refused_before_the_charge(task, rule, monkeypatch):
    X, lab, y = _xy()
    acc = BudgetAccountant(100.0, 1e-3, relation="substitute", tight=False)
    rec = DrawRecorder(monkeypatch)
    with pytest.raises(ValueError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _recipe(task, rule, acc).fit(X, lab if task == "classification" else y)
    assert acc.spent.epsilon == 0 and rec.untouched()


def test_unbuildable_grid_in_a_pipeline_refused_before_the_charge(monkeypatch):
    "charged_fit dry-runs the recipe step on its stand-in: the grid check must be in that run."
    from dplit import make_pipeline
    X, lab, _ = _xy()
    pipe = make_pipeline(PrivateClipScaler(bounds=(-2.0, 2.0), n_grid=None, epsilon=0.5,
                                           relation="substitute"),
                         RecipeClassifier(bounds=(-1.0, 1.0), rule=dict(x_n_grid=HUGE)))
    acc = BudgetAccountant(100.0, 1e-3, relation="substitute", tight=False)
    with pytest.raises(ValueError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            charged_fit(acc, pipe, X, lab)
    assert acc.spent.epsilon == 0


def test_paired_se_counts_the_shared_splits():
    """Cells of T tables x 3 budgets x S splits: a split effect shared by a table's three budgets
    (variance a) plus independent noise (variance b). The mean's true variance is
    (9a + 3b) / (9 T S); the rows-independent formula estimates (3a + 3b) / (9 T S), too small by
    sqrt((9a + 3b) / (3a + 3b)) = sqrt(2) here (a = b = 1). Over R = 2000 replications the ratio of
    the empirical s.d. of the mean to the mean reported s.e. is 1 within 0.06 (the s.d. of an
    s.d. estimate from R draws is about 1 / sqrt(2R) = 0.016: about four of them); the false
    formula's ratio is sqrt(2) = 1.41."""
    from dplit.recipes import _paired_diff
    T, S, R = 4, 40, 2000
    g = np.random.default_rng(7)
    split = g.normal(size=(R, T, 1, S))
    cells = (split + g.normal(size=(R, T, 3, S))).reshape(R, -1)
    means = cells.mean(axis=1)
    se = np.array([_paired_diff(c, np.zeros_like(c), S, 3)[1] for c in cells])
    ratio = means.std(ddof=1) / np.sqrt(np.mean(se ** 2))
    assert abs(ratio - 1) < 0.06, ratio


def _saved_tuning():
    import json
    from pathlib import Path
    return json.loads((Path(__file__).parents[1] / "bench" / "tuning_results.json").read_text())


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_saved_tuning_is_every_candidate_at_forty_splits(task):
    """bench/tuning_results.json holds every candidate of TUNING_GRID, row i being candidate i
    (its named parameters), TUNING_SPLITS splits of every tuning table and budget, each table's
    mean the mean of its cells (the same numbers, summed in another order: rounding only, and
    to_json keeps 10 digits), the best mean the rule's candidate."""
    from dplit.recipes import (HEAD_TO_HEAD_TABLES, TUNING_GRID, TUNING_SPLITS, X_FINE_GRID,
                               _family, _grid_label, recipe_rule)
    r = _saved_tuning()[task]
    names = [n for n, (t, _, role) in HEAD_TO_HEAD_TABLES.items()
             if t == task and role == "tuning"]
    cols, grid = r["table"]["columns"], TUNING_GRID[task]
    assert r["splits"] == TUNING_SPLITS and not r["dropped"]
    assert r["table"]["index"] == list(range(len(grid)))
    for i, row in zip(r["table"]["index"], r["table"]["data"]):
        row = dict(zip(cols, row))
        assert all(row[k] == v for k, v in grid[i].items() if k in row), i
        # the grids and thresholds are not columns: their labels are (a reordered sixth pass,
        # whose candidates differ only there, would pass the line above)
        fam, par = _family(grid[i])
        full = recipe_rule(task, 1.0, 1) | grid[i]
        assert row["X grid"] == _grid_label(full["x_n_grid"]) + (
            "" if full["x_fine_spread"] is None else f"/{X_FINE_GRID}"), i
        assert row["family"] == fam and (row["param"] == par if fam else row["param"] is None), i
        cells = np.reshape(r["cells"][i], (len(names), 3, TUNING_SPLITS))
        assert np.allclose(cells.mean(axis=(1, 2)), [row[n] for n in names], atol=1e-9)
    best = int(np.argmax([dict(zip(cols, row))["mean"] for row in r["table"]["data"]]))
    assert recipe_rule(task, 1.0, 1) | grid[best] == recipe_rule(task, 1.0, 1)


@pytest.mark.parametrize("task, i", [("regression", 51), ("classification", 6),
                                     ("regression", 61), ("classification", 47)])
def test_saved_tuning_is_this_codes_beyond_the_rule(task, i):
    """The chapter re-runs the rule's candidate; a runner-up's first split, re-run, is its saved
    first split too (same code, same seeds: equal to rounding), for a candidate of the first run
    and for one of the sixth pass (appended by `bench/tune_recipes.py --extend`: X without a
    grid; C by the trade-off)."""
    from dplit.recipes import HEAD_TO_HEAD_TABLES, TUNING_GRID, TUNING_SPLITS, run_recipes
    names = [n for n, (t, _, role) in HEAD_TO_HEAD_TABLES.items()
             if t == task and role == "tuning"]
    again = np.concatenate([np.maximum(x["scores"], -1) for x in run_recipes(
        names, splits=1, rule=TUNING_GRID[task][i])])
    saved = np.reshape(_saved_tuning()[task]["cells"][i], (-1, TUNING_SPLITS))[:, 0]
    assert np.allclose(again, saved, rtol=1e-9, atol=1e-12)
