"""`pip install .` into a clean virtual environment installs dplit with its runtime dependencies only:
`import dplit` and every module import without nbdev or Jupyter, and the console script runs."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_clean_install_has_no_dev_dependencies(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", str(ROOT)], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    code = ("import importlib, pkgutil, sys, dplit\n"
            "mods = [m.name for m in pkgutil.iter_modules(dplit.__path__)]\n"
            "[importlib.import_module('dplit.' + m) for m in mods if m not in ('book',)]\n"
            "bad = [m for m in ('nbdev', 'execnb', 'IPython', 'jupyter_client', 'ipykernel') if m in sys.modules]\n"
            "assert not bad, bad\n"
            "print(len(mods))")
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for dev in ("nbdev", "execnb", "ipykernel"):
        assert subprocess.run([str(py), "-m", "pip", "show", dev], capture_output=True).returncode != 0, f"{dev} was installed"
    r = subprocess.run([str(venv / "bin" / "dplit"), "list"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "analytic_gaussian" in r.stdout, r.stderr
