"""A chapter that runs a registered check must fail when the check fails.

A cell that only displays `verify_x()` shows a FAIL record and still passes nbdev_test: so the `bss_mip_bucket_bounds`
mutant went uncaught (0/8) for a whole refactor, seen only by `dplit verify`. Every notebook code cell that calls a
`verify_*` function must assert its `passed` (fast: reads the notebooks, runs nothing)."""
import json
import re
from pathlib import Path

NBS = Path(__file__).resolve().parents[1] / "nbs"


def test_every_cell_that_runs_a_check_asserts_it():
    loose = []
    for f in sorted(NBS.glob("*.ipynb")):
        for c in json.loads(f.read_text())["cells"]:
            src = "".join(c["source"])
            if c["cell_type"] != "code" or re.match(r"\s*#\|\s*export", src):
                continue
            calls = re.findall(r"(?<![\w.])(verify_\w+)\(", src)
            if calls and not re.search(r"\bassert\b.*\.passed|\.passed\b.*\bassert\b|assert_passed", src):
                loose.append(f"{f.name}: {calls[0]}")
    assert not loose, "cells that run a check without asserting it passed:\n" + "\n".join(loose)
