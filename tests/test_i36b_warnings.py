"""Issue 36, finding 6: warnings for people, not leaks.

* every warning a fit emits points at the user's line (this file), not at dplit or scikit-learn;
* a dplit pipeline fit emits one ClippingWarning for all its steps;
* a ClippingWarning's text carries no statistic of the private data: it is the same for two
  datasets that clip different numbers of values (only the bit "something was clipped" shows);
* PrivateGridSearch's warnings (their number and text) do not depend on its random number of runs;
* no saved notebook output holds a clipping count ("clipped N of M", "N of M entries").
"""
import glob
import json
import os
import re
import warnings

import numpy as np
import pytest

from dplit.core import ClippingWarning, clipping_counts, make_pipeline

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(HERE))


def record(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return w


def data(n=60, p=3, seed=0, scale=1.0, outliers=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-0.3, 0.3, (n, p)) / np.sqrt(p)
    y = np.clip(X[:, 0] - 0.5 * X[:, 1] + 0.05 * g.normal(size=n), -0.45, 0.45)
    X, y = scale * X, scale * y
    X[:outliers] *= 1000.0                      # `outliers` rows far outside every bound
    y[:outliers] *= 1000.0
    return X, y


def _bas(**kw):
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    return BoostedAdaSSPRegressor(n_rounds=3, random_state=0, **kw)


def _fits():
    from dplit.bounds import PrivateClipScaler
    from dplit.bss import BestSubsetSelector
    from dplit.dpsis import DPSISSelector
    from dplit.objpert import ObjectivePerturbationRegressor
    from sklearn.pipeline import make_pipeline as sk_make_pipeline
    yield "BAS", lambda X, y: _bas().fit(X, y)
    yield "BSS", lambda X, y: BestSubsetSelector(s=2, random_state=0).fit(X, y)
    yield "DPSIS", lambda X, y: DPSISSelector(k=2, random_state=0).fit(X, y)
    yield "ObjPert", lambda X, y: ObjectivePerturbationRegressor(random_state=0).fit(X, y)
    sc = lambda: PrivateClipScaler(epsilon=1.0, bounds=(-500.0, 500.0), random_state=0)
    yield "dplit pipeline", lambda X, y: make_pipeline(sc(), _bas()).fit(X, y)
    yield "sklearn pipeline", lambda X, y: sk_make_pipeline(sc(), _bas()).fit(X, y)


FITS = dict(_fits())


@pytest.mark.parametrize("name", sorted(FITS))
def test_every_warning_of_a_fit_points_at_the_users_line(name):
    w = record(lambda: FITS[name](*data(outliers=3)))
    assert w, "the fit should warn (3 rows far outside the bounds)"
    where = {(os.path.abspath(x.filename), x.category.__name__) for x in w}
    assert all(f == HERE for f, _ in where), where


def test_a_dplit_pipeline_fit_emits_one_clipping_warning():
    "Scaler then BAS, both clipping: one warning naming both steps (two before issue 36)."
    w = [x for x in record(lambda: FITS["dplit pipeline"](*data(p=6, outliers=3)))
         if issubclass(x.category, ClippingWarning)]
    assert len(w) == 1, [str(x.message) for x in w]
    msg = str(w[0].message)
    assert "PrivateClipScaler.transform" in msg and "Boosted AdaSSP" in msg


@pytest.mark.parametrize("name", ["BAS", "BSS", "DPSIS", "ObjPert"])
def test_clipping_text_does_not_depend_on_how_much_was_clipped(name):
    """1 outlier row vs 20: the text of one release is the same (no count, fraction or range of the
    data). A pipeline's text names the steps that clipped: one bit per step, by the rule."""
    texts = []
    for k in (1, 20):
        w = record(lambda: FITS[name](*data(outliers=k)))
        texts.append(sorted(str(x.message) for x in w if issubclass(x.category, ClippingWarning)))
    assert texts[0] == texts[1] and texts[0], texts
    assert not COUNT.search(" ".join(texts[0])), texts[0]


def test_counts_only_on_request_and_marked():
    with clipping_counts():
        w = record(lambda: _bas().fit(*data(outliers=3)))
    msg = " ".join(str(x.message) for x in w if issubclass(x.category, ClippingWarning))
    assert "NON-PRIVATE" in msg and "3 of 60" in msg
    w = record(lambda: _bas().fit(*data(outliers=3)))            # off again outside the block
    assert "NON-PRIVATE" not in " ".join(str(x.message) for x in w)


def _runs_and_warnings(seed, monkeypatch):
    "(number of runs, sorted warning texts) of one PrivateGridSearch fit."
    from dplit.boosted_adassp import BoostedAdaSSPRegressor
    from dplit.tuning import PrivateGridSearch
    runs = []
    real = BoostedAdaSSPRegressor.fit
    monkeypatch.setattr(BoostedAdaSSPRegressor, "fit",
                        lambda self, X, y: (runs.append(1), real(self, X, y))[1])
    search = PrivateGridSearch(_bas(), {"eta": [1.0]},
                               epsilon=5.0, gamma=0.3, random_state=seed)
    w = record(lambda: search.fit(*data(n=80, outliers=5)))
    return len(runs), sorted((x.category.__name__, str(x.message), x.filename) for x in w)


def test_grid_search_warnings_do_not_count_its_runs(monkeypatch):
    """Seeds with different (random) numbers of runs give the same warnings, in number and text,
    all at this file's line; every run clips (5 rows far outside the bounds)."""
    seen = {}
    for seed in range(12):
        k, w = _runs_and_warnings(seed, monkeypatch)
        seen.setdefault(k, w)
        if len(seen) >= 3:
            break
    assert len(seen) >= 3, f"the seeds gave too few distinct run counts: {sorted(seen)}"
    texts = list(seen.values())
    assert all(t == texts[0] for t in texts), {k: len(v) for k, v in seen.items()}
    cats = [c for c, _, _ in texts[0]]
    assert cats.count("ClippingWarning") == 1 and all(f == HERE for *_, f in texts[0]), texts[0]


# ---- the saved book: no clipping count in any output -------------------------------------------
COUNT = re.compile(r"clipped\s+\d[\d,]*\s+(?:of\b|entries|rows|values|labels|targets)"
                   r"|\b\d[\d,]*\s+of\s+\d[\d,]*\s+(?:entries|rows|values|labels|targets)\b")
OLD_TEXTS = [  # what the book and the package printed before issue 36
    "demo.fit clipped 3 of 4420 entries of X (0.0679%) to [-1, 1]; 442 of 442 entries of y",
    "warning: PrivateClipScaler clipped 2 of 5 entries (40.0%) to the private ranges",
    "warning: clipped 18452 entries of X to [-b_x, b_x] and 1926 entries of y to [-b_y, b_y]",
    "Boosted AdaSSP clipped 15 of 100 rows of X (15%) to norm clip_x = 1",
]


def _outputs(path):
    nb = json.load(open(path))
    for i, c in enumerate(nb["cells"]):
        for o in c.get("outputs", []):
            texts = [o.get("text", "")] + [v for k, v in o.get("data", {}).items()
                                           if k.startswith("text/")]
            for t in texts:
                yield i, "".join(t) if isinstance(t, list) else str(t)


def leaks(paths):
    "(notebook, cell, excerpt) of every saved output that states a clipping count."
    out = []
    for p in paths:
        for i, t in _outputs(p):
            for m in COUNT.finditer(t):
                out.append((os.path.basename(p), i, t[max(0, m.start() - 40):m.end() + 40]))
    return out


def test_the_scanner_catches_the_old_texts():
    assert all(COUNT.search(t) for t in OLD_TEXTS)
    assert not COUNT.search("PrivateClipScaler.transform: some values were clipped to their "
                            "public bounds (entries of X: the private ranges ranges_)")


def test_no_saved_notebook_output_states_a_clipping_count():
    paths = sorted(glob.glob(os.path.join(ROOT, "nbs", "*.ipynb")))
    assert len(paths) > 20
    assert leaks(paths) == []
