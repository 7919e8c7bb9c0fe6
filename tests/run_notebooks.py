"""Every notebook as a test: what `nbdev_test --n_workers 2 --timing` does, with the longest notebooks started first.

nbdev_test hands the notebooks to its workers in alphabetical order, so the longest one (53, ~70 s) started last and
ran alone while the other core idled. Here the notebooks known to be long start first and the short ones fill in
at the end (longest-processing-time-first scheduling). Each notebook runs exactly as nbdev_test runs it (nbdev's
own `test_nb`: IN_TEST set, cells flagged with a skip flag of settings.ini's `tst_flags` skipped unless forced).

    python tests/run_notebooks.py [--flags slow] [--n_workers 2]
"""
import argparse
import sys
from pathlib import Path

from fastcore.parallel import parallel
from fastcore.xtras import working_directory
from nbdev.config import get_config
from nbdev.test import test_nb

# The longest notebooks of the default run, longest first (fresh-clone CI on 2 cores, 26 Nov 2026: 71, 49, 47, 39,
# 36, 33, 31, 29, 25, 22, 21, 20 s). A notebook not listed starts after these, in alphabetical order; a wrong or
# stale list costs time, never a test.
LONGEST_FIRST = ["53_bss_experiments", "51_bss_mip", "03_audit", "21_dpsis", "32_dprados", "41_dpgp_hyper",
                 "12_dpkendall", "40_dpgp", "50_bss", "11_gumbel", "20_lipschitz", "14_boosted_adassp"]


def notebooks(nbs: Path) -> list[Path]:
    "The notebooks to test (none in a folder holding a `.notest` file), longest first."
    files = [f.absolute() for f in sorted(nbs.rglob("*.ipynb"))
             if ".ipynb_checkpoints" not in f.parts and not (f.parent / ".notest").exists()
             and not any(part.startswith(("_", ".")) for part in f.relative_to(nbs).parts)]
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    return sorted(files, key=lambda f: (rank.get(f.stem, len(rank)), str(f)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flags", default="", help="space-separated skip flags to run anyway (e.g. slow)")
    ap.add_argument("--n_workers", type=int, default=2)
    a = ap.parse_args(argv)
    cfg = get_config()
    files = notebooks(cfg.nbs_path)
    with working_directory(cfg.nbs_path):  # where nbdev_test runs them
        results = parallel(test_nb, files, skip_flags=cfg.tst_flags.split(), force_flags=a.flags.split(),
                           n_workers=a.n_workers, basepath=cfg.config_path, pause=0.01)
    passed, times = zip(*results)
    if all(passed):
        print("Success.")
    for i in sorted(range(len(files)), key=lambda i: -times[i]):
        print(f"{files[i].name}: {int(times[i])} secs")
    if not all(passed):
        failed = "\n\t".join(f.name for p, f in zip(passed, files) if not p)
        sys.stderr.write(f"\nnbdev Tests Failed On The Following Notebooks:\n{'=' * 50}\n\t{failed}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
