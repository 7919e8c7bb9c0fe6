"""diffprivlib 0.6.6 and non-private scikit-learn on the head-to-head tables (chapter 19).

Run in this directory's own environment (diffprivlib needs scikit-learn <= 1.7):
    bash bench/diffprivlib/setup.sh
    .venv/bin/python bench/diffprivlib/export.py            # main environment: tables + splits
    bench/diffprivlib/.venv/bin/python bench/diffprivlib/run.py [--tables a,b] [--out file.json]

Methods, per table, per epsilon, per split (the seeded splits exported by export.py):
  nonprivate  scikit-learn LinearRegression / LogisticRegression(C=1) on the same scaled features.
  public      diffprivlib with bounds as its documentation asks: LinearRegression(bounds_X,
              bounds_y) and LogisticRegression(data_norm) on features mapped to [-1, 1] by the
              public bounds. The public bounds here are each column's full-table min and max: an
              oracle a data owner rarely has, so this variant is favourable to diffprivlib.
  quantile    private bounds: diffprivlib.tools.quantile (exponential mechanism) releases the 5%
              and 95% quantiles of every column (and of y) inside the coarse schema range, with
              half of epsilon split evenly over them; the model gets the other half.
diffprivlib's guarantee is pure epsilon-DP (delta = 0) with the number of rows public: its means
use sensitivity (upper - lower) / n, the substitute-one-row relation.
Scores: R^2 (regression) or accuracy (classification) on the 25% test part.
"""
import argparse
import json
import os
import platform
import time
import warnings

import numpy as np

EPSILONS = (0.5, 1.0, 3.0)
QUANTILES = (0.05, 0.95)
here = os.path.dirname(os.path.abspath(__file__))


def _scale(X, lo, hi):
    "Map columns to [-1, 1] by the ranges lo..hi and clip (post-processing of the ranges)."
    w = np.where(hi > lo, hi - lo, 1.0)
    return np.clip(2 * (X - lo) / w - 1, -1, 1)


def _private_ranges(A, schema, eps, seed):
    from diffprivlib.tools import quantile
    out = []
    for j in range(A.shape[1]):
        lo, hi = quantile(A[:, j], list(QUANTILES), epsilon=eps / A.shape[1],
                          bounds=tuple(schema[j]), random_state=seed + j)
        out.append((lo, hi) if hi > lo else (lo, lo + 1e-9 * max(1.0, abs(lo))))
    return np.array(out)


def _regression(method, Xtr, ytr, Xte, yte, eps, z, seed):
    from diffprivlib.models import LinearRegression as DPLin
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score
    t = time.perf_counter()
    if method == "nonprivate":
        m = LinearRegression().fit(Xtr, ytr)
        Xt = Xte
    elif method == "public":
        bx, by = z["x_minmax"], z["y_minmax"]
        m = DPLin(epsilon=eps, bounds_X=(bx[:, 0], bx[:, 1]), bounds_y=(by[0], by[1]),
                  random_state=seed)
        m.fit(np.clip(Xtr, bx[:, 0], bx[:, 1]), np.clip(ytr, by[0], by[1]))
        Xt = Xte
    else:  # quantile: half of epsilon to the ranges of the d columns and y, half to the model
        A = np.column_stack([Xtr, ytr])
        sch = np.vstack([z["x_schema"], z["y_schema"][None, :]])
        r = _private_ranges(A, sch, eps / 2, seed)
        m = DPLin(epsilon=eps / 2, bounds_X=(r[:-1, 0], r[:-1, 1]), bounds_y=tuple(r[-1]),
                  random_state=seed + 10_000)
        m.fit(np.clip(Xtr, r[:-1, 0], r[:-1, 1]), np.clip(ytr, r[-1, 0], r[-1, 1]))
        Xt = np.clip(Xte, r[:-1, 0], r[:-1, 1])
    fit_time = time.perf_counter() - t
    return float(r2_score(yte, m.predict(Xt))), fit_time


def _classification(method, Xtr, ytr, Xte, yte, eps, z, seed):
    from diffprivlib.models import LogisticRegression as DPLog
    from sklearn.linear_model import LogisticRegression
    d = Xtr.shape[1]
    t = time.perf_counter()
    if method in ("nonprivate", "public"):
        lo, hi = z["x_minmax"][:, 0], z["x_minmax"][:, 1]
    else:
        r = _private_ranges(Xtr, z["x_schema"], eps / 2, seed)
        lo, hi = r[:, 0], r[:, 1]
    S, St = _scale(Xtr, lo, hi), _scale(Xte, lo, hi)
    if method == "nonprivate":
        m = LogisticRegression(C=1.0, max_iter=1000).fit(S, ytr)
    else:
        e = eps if method == "public" else eps / 2
        m = DPLog(epsilon=e, data_norm=float(np.sqrt(d)), C=1.0, max_iter=1000,
                  random_state=seed + 10_000).fit(S, ytr)
    fit_time = time.perf_counter() - t
    return float(np.mean(m.predict(St) == yte)), fit_time


def run_table(name, methods=("nonprivate", "public", "quantile")):
    z = np.load(os.path.join(here, "data", f"{name}.npz"))
    X, y, task = z["X"], z["y"], str(z["task"])
    one = _regression if task == "regression" else _classification
    rows = []
    for method in methods:
        for eps in (EPSILONS if method != "nonprivate" else (None,)):
            scores, times = [], []
            for s, (tr, te) in enumerate(zip(z["train"], z["test"])):
                seed = 1000 * s + int(10 * (eps or 0))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sc, ft = one(method, X[tr], y[tr], X[te], y[te], eps, z, seed)
                scores.append(sc), times.append(ft)
            a = np.array(scores)
            rows.append(dict(table=name, task=task, library="diffprivlib"
                             if method != "nonprivate" else "scikit-learn",
                             method=method, epsilon=eps, mean=float(a.mean()),
                             se=float(a.std(ddof=1) / np.sqrt(len(a))),
                             median=float(np.median(a)), min=float(a.min()),
                             fit_seconds=float(np.mean(times)), scores=[float(v) for v in a],
                             n_train=int(len(z["train"][0])), d=int(X.shape[1])))
            print(name, method, eps, f"{a.mean():.3f} ± {rows[-1]['se']:.3f}", flush=True)
    return rows


def main():
    import diffprivlib
    import pandas
    import scipy
    import sklearn
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default="")
    ap.add_argument("--out", default=os.path.join(here, "results.json"))
    a = ap.parse_args()
    names = a.tables.split(",") if a.tables else sorted(
        f[:-4] for f in os.listdir(os.path.join(here, "data")) if f.endswith(".npz"))
    t0 = time.time()
    rows = [r for n in names for r in run_table(n)]
    out = dict(versions=dict(diffprivlib=diffprivlib.__version__, sklearn=sklearn.__version__,
                             numpy=np.__version__, scipy=scipy.__version__,
                             pandas=pandas.__version__, python=platform.python_version()),
               epsilons=list(EPSILONS), quantiles=list(QUANTILES),
               seconds=round(time.time() - t0, 1), machine=platform.machine(),
               when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rows=rows)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", a.out, f"{out['seconds']} s")


if __name__ == "__main__":
    main()
