"""The README's two commands, as a new user runs them, in one fresh clone.

README command 1 is run in full: ``python3 -m venv .venv && .venv/bin/pip install -c constraints.txt . && .venv/bin/dplit verify``.
Of README command 2 (``bash tests/run.sh``) the test runs the part that command 1 can break, the set-up
(``bash tests/run.sh --setup-only``: the editable install over command 1's regular one, and the cleanup of what that
leaves behind), then what failed for a new user: ``dplit list`` and ``dplit verify --only analytic_gaussian`` from
outside the checkout. Running all of command 2 here would run this very suite again inside itself (and this test
again, recursively); the rest of command 2 is the suite that is running now.

The clone is made from the committed HEAD of this checkout (uncommitted changes are not in it). The pip cache makes
the installs offline-fast; the whole test takes a few minutes, so it is marked slow (``--runslow``).
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMAND_1 = "python3 -m venv .venv && .venv/bin/pip install -c constraints.txt . && .venv/bin/dplit verify"


def _run(cmd, cwd, timeout):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    t0 = time.perf_counter()
    r = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return r, time.perf_counter() - t0


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    return [block.split("```", 1)[0].strip() for block in text.split("```sh\n")[1:]]


def test_readme_still_says_these_commands():
    assert _readme_commands()[:2] == [COMMAND_1, "bash tests/run.sh"]


@pytest.mark.slow
def test_readme_command_1_then_command_2_in_a_fresh_clone(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    clone = tmp_path / "dplit"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)

    r1, t1 = _run(COMMAND_1, clone, timeout=2400)
    assert r1.returncode == 0, f"README command 1 failed after {t1:.0f} s:\n{r1.stdout[-3000:]}\n{r1.stderr[-3000:]}"
    assert " passed, 0 failed" in r1.stdout

    r2, t2 = _run("bash tests/run.sh --setup-only", clone, timeout=2400)
    assert r2.returncode == 0, f"tests/run.sh set-up failed after {t2:.0f} s:\n{r2.stdout[-3000:]}\n{r2.stderr[-3000:]}"
    site = list((clone / ".venv" / "lib").glob("python*/site-packages/dplit"))
    assert all((d / "__init__.py").is_file() for d in site), f"a stale dplit folder is left in {site}"

    dplit = clone / ".venv" / "bin" / "dplit"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    r3, _ = _run(f"{dplit} list", outside, timeout=600)
    assert r3.returncode == 0 and "analytic_gaussian" in r3.stdout, r3.stdout + r3.stderr
    r4, _ = _run(f"{dplit} verify --only analytic_gaussian --no-progress --out {outside / 'out'}", outside, timeout=600)
    assert r4.returncode == 0 and "1 passed, 0 failed" in r4.stdout, r4.stdout + r4.stderr
    print(f"\nREADME command 1: {t1:.0f} s; tests/run.sh --setup-only after it: {t2:.0f} s")
