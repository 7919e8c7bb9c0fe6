"""Chapter 19's tuning at TUNING_SPLITS splits, saved to bench/tuning_results.json.

Run from the repository root: `nice -n 19 python bench/tune_recipes.py regression` (and
`classification`, possibly at the same time), then the same with `--rest`, then
`python bench/tune_recipes.py --merge`. The grid runs in two parts so that a short session can
stop after the first: at 40 splits the full grid was projected above 25 minutes on the shared
machine (it took about 17), so the first part leaves out the candidates clearly dominated at 10
splits, those whose 10-split mean (the chapter's tuning output at commit 53d9ce8, copied below) is
below the best 10-split mean by more than two of the standard errors printed there for the
10-split rule (regression 0.0165, classification 0.0060; a mean shown to three decimals that
straddles the cut is kept), and `--rest` runs those. The merged file holds every candidate.
Candidates added to the grid later (the sixth pass) run with `--extend`, which appends them to
the saved file: `nice -n 19 python bench/tune_recipes.py --extend`.
"""
import json
import sys
import time

import dplit.recipes as R

SCREEN = {  # task: (best 10-split mean, its printed s.e., {dropped index: its 10-split mean})
    "regression": (0.1913, 0.0165, {
        0: 0.016, 1: 0.088, 2: 0.069, 3: 0.083, 4: 0.066, 5: 0.141, 6: 0.157, 8: 0.149,
        10: -0.005, 11: -0.037, 12: -0.030, 13: -0.074, 14: -0.059, 15: 0.057, 16: 0.129,
        17: 0.109, 18: 0.124, 19: 0.107, 20: 0.156, 25: 0.030, 26: 0.008, 27: 0.021,
        28: -0.037, 29: -0.012, 31: 0.156, 33: 0.140, 37: 0.145, 39: 0.120, 40: 0.131,
        41: 0.143, 42: 0.115, 43: 0.135, 44: 0.119, 45: 0.142, 46: 0.146, 47: 0.112,
        48: 0.129}),
    "classification": (0.7963, 0.0060, {0: 0.778, 12: 0.783, 17: 0.782, 31: 0.780, 32: 0.780})}
OUT = "bench/tuning_results.json"


def main(task, rest=False):
    best, se, dropped = SCREEN[task]
    assert all(m < best - 2 * se for m in dropped.values())  # the cut, on the copied means
    keep = [i for i in range(len(R.TUNING_GRID[task])) if (i in dropped) == rest]
    t0 = time.time()
    tab = R.tune_rule(task, splits=R.TUNING_SPLITS, keep=keep)
    out = dict(task=task, splits=R.TUNING_SPLITS, seconds=round(time.time() - t0, 1),
               when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               dropped={str(i): m for i, m in dropped.items()}, cut=round(best - 2 * se, 4),
               table=json.loads(tab.to_json(orient="split")), cells=tab.attrs["cells"])
    with open(f"bench/tuning_results_{task}{'_rest' if rest else ''}.json", "w") as f:
        json.dump(out, f)
    print(f"{task}: {len(keep)} candidates in {out['seconds']} s")


def merge():
    "One file of both tasks; a `--rest` run, when there is one, joins its candidates back."
    out = {}
    for task in ("regression", "classification"):
        with open(f"bench/tuning_results_{task}.json") as f:
            out[task] = r = json.load(f)
        try:
            with open(f"bench/tuning_results_{task}_rest.json") as f:
                rest = json.load(f)
        except FileNotFoundError:
            continue
        rows = sorted(zip(r["table"]["index"] + rest["table"]["index"],
                          r["table"]["data"] + rest["table"]["data"], r["cells"] + rest["cells"]))
        r["table"]["index"], r["table"]["data"], r["cells"] = map(list, zip(*rows))
        r["seconds"] = round(r["seconds"] + rest["seconds"], 1)
        r["dropped"], r["when"] = {}, rest["when"]
    with open(OUT, "w") as f:
        json.dump(out, f)


def extend():
    "The grid's candidates past the saved file's (same tables, seeds and splits), appended to it."
    with open(OUT) as f:
        saved = json.load(f)
    for task, r in saved.items():
        keep = list(range(len(r["cells"]), len(R.TUNING_GRID[task])))
        assert r["table"]["index"] == list(range(len(r["cells"]))) and keep, (task, keep)
        t0 = time.time()
        tab = R.tune_rule(task, splits=r["splits"], keep=keep)
        assert set(tab.columns) == set(r["table"]["columns"]), (task, list(tab.columns))
        tab = tab[r["table"]["columns"]]
        new = json.loads(tab.to_json(orient="split"))
        r["table"]["index"] += new["index"]
        r["table"]["data"] += new["data"]
        r["cells"] += tab.attrs["cells"]
        r["seconds"] = round(r["seconds"] + time.time() - t0, 1)
        r["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        print(f"{task}: {len(keep)} candidates added in {time.time() - t0:.0f} s")
    with open(OUT, "w") as f:
        json.dump(saved, f)


if __name__ == "__main__":
    if sys.argv[1] == "--merge":
        merge()
    elif sys.argv[1] == "--extend":
        extend()
    else:
        main(sys.argv[1], "--rest" in sys.argv)
