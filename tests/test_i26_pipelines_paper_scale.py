"""Issue 26 (chapter 15 at the paper's scale): the cache of r2_experiment, the jitter option, and the
spread and decomposition tables, each against an independent computation."""
import os

import numpy as np
import pandas as pd
import pytest

from dplit.pipelines import (PAPER_REGRESSORS, REGRESSORS, comparison_datasets,
                             decomposition_table, paper_bas_factory, paper_tukey_factory,
                             r2_experiment, spread_table)

PIPES = ("NonDP", "BAS")     # no selection: no numba compile, so the file stays fast
COLS = ["dataset", "trial", "pipeline", "k", "r2", "failed"]


def _kw(cache):
    return dict(ks=(2,), trials=2, progress=False, cache=str(cache))


def _data():
    g = np.random.default_rng(7)
    out = {}
    for name in ("a", "b"):
        X = g.normal(size=(400, 6)) / 4                      # rows inside BAS's clipping norm
        out[name] = (X, (X[:, 0] - X[:, 1] + 0.1 * g.normal(size=400)) / 4)
    return out


def test_cache_equals_one_call_and_is_reused(tmp_path):
    data = _data()
    ref = r2_experiment(data, PIPES, ks=(2,), trials=2, rng=11, progress=False)
    first = r2_experiment(data, PIPES, rng=11, **_kw(tmp_path))
    files = sorted(os.listdir(tmp_path))
    again = r2_experiment(data, PIPES, rng=11, **_kw(tmp_path))
    assert first[COLS].equals(ref[COLS]) and again[COLS].equals(ref[COLS])
    assert first.attrs["loaded"] == [] and again.attrs["loaded"] == ["a", "b"]
    assert len(files) == 2 and sorted(os.listdir(tmp_path)) == files
    assert set(first.attrs["wall_seconds"]) == {"a", "b"}


def test_cache_key_changes_with_settings_and_data(tmp_path):
    data = _data()
    r2_experiment(data, PIPES, rng=11, **_kw(tmp_path))
    n0 = len(os.listdir(tmp_path))
    other = r2_experiment(data, PIPES, rng=12, **_kw(tmp_path))
    assert other.attrs["loaded"] == [] and len(os.listdir(tmp_path)) == n0 + 2
    moved = {k: (X + 1e-9, y) for k, (X, y) in data.items()}        # one bit of data differs
    res = r2_experiment(moved, PIPES, rng=11, **_kw(tmp_path))
    assert res.attrs["loaded"] == []
    # the same numbers in one stream, cut into X and y elsewhere: another problem
    flat = np.concatenate([data["a"][0].ravel(), data["a"][1]])
    recut = {"a": (flat[:350 * 7].reshape(350, 7), flat[350 * 7:])}
    res = r2_experiment(recut, PIPES, rng=11, **_kw(tmp_path))
    assert res.attrs["loaded"] == []
    res = r2_experiment(data, PIPES, ks=(2,), trials=2, rng=11, progress=False,
                        regressors={"bas": paper_bas_factory}, cache=str(tmp_path))
    assert res.attrs["loaded"] == []


def test_cache_key_follows_the_code(tmp_path, monkeypatch):
    """Two factories (or helpers) with the same name but other code must not share results: the
    key holds the code, not the name (a notebook redefines functions under their old names)."""
    import dplit.pipelines as P
    data = {"a": _data()["a"]}
    run = lambda f: r2_experiment(data, PIPES, ks=(2,), trials=1, rng=11, progress=False,
                                  regressors={"bas": f}, cache=str(tmp_path))
    f1 = lambda e, d, n, r: paper_bas_factory(e, d, n, r)
    f2 = lambda e, d, n, r: paper_bas_factory(e, d / 2, n, r)          # same name, other code
    f1_again = lambda e, d, n, r: paper_bas_factory(e, d, n, r)        # same code, other object
    assert run(f1).attrs["loaded"] == []
    assert run(f2).attrs["loaded"] == []
    assert run(f1_again).attrs["loaded"] == ["a"]
    jobs = P._jobs
    monkeypatch.setattr(P, "_jobs", lambda pipelines, ks, p: list(jobs(pipelines, ks, p)))
    assert run(f1).attrs["loaded"] == []                              # a helper of _trial changed


def test_cache_needs_int_seed(tmp_path):
    with pytest.raises(TypeError, match="cache"):
        r2_experiment(_data(), PIPES, ks=(2,), trials=1, rng=np.random.default_rng(0),
                      progress=False, cache=str(tmp_path))
    with pytest.raises(TypeError, match="cache"):
        r2_experiment(_data(), PIPES, ks=(2,), trials=1, rng=0, progress=False, cache=3)


def test_jitter_bounds_and_keeps_name():
    plain = comparison_datasets(["synthetic-sparse"])["synthetic-sparse"]
    jit = comparison_datasets(["synthetic-sparse"], jitter=1e-6)["synthetic-sparse"]
    d = jit.X - plain.X
    assert jit.name == plain.name and np.array_equal(jit.y, plain.y)
    assert np.abs(d).max() <= 1e-6 and np.abs(d).max() > 0.9e-6     # uniform on [-1e-6, 1e-6]
    assert abs(d.mean()) < 1e-8                                       # 4e5 draws: sd 5.8e-10 /~
    with pytest.raises(ValueError, match="jitter"):
        comparison_datasets(["synthetic-sparse"], jitter=-1.0)


def _toy_results():
    rows = []
    vals = {"NonDP": [0.1 * t for t in range(10)],
            "K-Tukey": [-np.inf] * 4 + [0.5 + 0.01 * t for t in range(6)]}
    for pipe, v in vals.items():
        for t, r in enumerate(v):
            rows.append(dict(dataset="diamonds-onehot", trial=t, pipeline=pipe,
                             k=None if pipe == "NonDP" else 5, r2=r, failed=r == -np.inf,
                             seconds=0.0))
    return pd.DataFrame(rows)


def test_spread_table_against_hand_order_statistics():
    tab = spread_table(_toy_results(), 5)
    nd = tab.loc[("diamonds-onehot", "NonDP")]
    # ten values 0, .1, ..., .9: median .45; inverted-cdf quartiles are the 3rd and 8th values
    assert nd["median"] == pytest.approx(0.45) and nd["q1"] == pytest.approx(0.2)
    assert nd["q3"] == pytest.approx(0.7) and nd["min"] == 0 and nd["max"] == pytest.approx(0.9)
    kt = tab.loc[("diamonds-onehot", "K-Tukey")]
    assert kt["failed"] == 4 and kt["q1"] == -np.inf and kt["median"] == pytest.approx(0.505)
    assert nd["paper"] == 0.97 and kt["paper"] == 0.88               # Figure 4, task 361096
    assert list(tab.index.get_level_values(1)) == ["NonDP", "K-Tukey"]


def test_decomposition_table_text():
    base = _toy_results()
    var = base[base["pipeline"] == "K-Tukey"].assign(r2=0.25, failed=False)
    tab = decomposition_table({"ours": base, "variant": var}, 5)
    assert list(tab.index) == [("diamonds-onehot", "K-Tukey")]
    assert tab.iloc[0].tolist() == ["0.505 (4/10 failed)", "0.25", "0.88"]


def test_paper_factories_are_the_paper_variants():
    b = paper_bas_factory(1.0, 1e-5, None, 3)
    t = paper_tukey_factory(1.0, 1e-5, 1000.0, 3)
    assert b.ridge == "seed" and t.paper_accounting is True and t.n_tilde == 1000.0
    assert PAPER_REGRESSORS == {"bas": paper_bas_factory, "tukey": paper_tukey_factory}
    # otherwise exactly the chapter's own regressors: one switch each, nothing else moved
    ours_b = REGRESSORS["bas"](1.0, 1e-5, None, 3).get_params()
    ours_t = REGRESSORS["tukey"](1.0, 1e-5, 1000.0, 3).get_params()
    assert b.get_params() == {**ours_b, "ridge": "seed"} and ours_b["ridge"] != "seed"
    assert t.get_params() == {**ours_t, "paper_accounting": True} and not ours_t["paper_accounting"]


def test_tables_validate_arguments():
    with pytest.raises(ValueError, match="k"):
        spread_table(_toy_results(), 0)
    with pytest.raises(TypeError, match="runs"):
        decomposition_table({}, 5)
    with pytest.raises(TypeError, match="runs"):
        decomposition_table([_toy_results()], 5)
