"""tests/run_notebooks.py runs the same notebooks as nbdev_test, only in another order (fast, no notebook runs)."""
import sys
from pathlib import Path

from nbdev.config import get_config
from nbdev.doclinks import nbglob
from nbdev.test import _keep_file

sys.path.insert(0, str(Path(__file__).parent))
import run_notebooks  # noqa: E402


def test_the_same_notebooks_as_nbdev_test():
    theirs = sorted(f.absolute() for f in nbglob(as_path=True) if _keep_file(f, ".notest"))
    ours = run_notebooks.notebooks(get_config().nbs_path)
    assert len(ours) == len(set(ours)) and sorted(ours) == theirs


def test_longest_first_then_alphabetical():
    ours = [f.stem for f in run_notebooks.notebooks(get_config().nbs_path)]
    listed = [n for n in run_notebooks.LONGEST_FIRST if n in ours]
    assert listed == run_notebooks.LONGEST_FIRST, "a notebook of LONGEST_FIRST no longer exists: update the list"
    assert ours[:len(listed)] == listed and ours[len(listed):] == sorted(ours[len(listed):])
