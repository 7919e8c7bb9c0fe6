"""dplit runs with its runtime dependencies only.

The default run checks it in two fast ways: every third-party import in the package is a declared dependency
(runtime for imports at module level, runtime or an extra for imports inside functions), and every module imports
and the console's `list` runs with the development packages blocked from import. The full check, `pip install .`
into a clean virtual environment (83 s on 2 cores with a warm pip cache), is marked slow (``--runslow``); README
command 1 is run in full by tests/test_readme_commands.py under the same flag."""
import ast
import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEV_ONLY = ("nbdev", "execnb", "fastcore", "IPython", "jupyter_client", "ipykernel", "pytest", "xdist",
            "sphinx", "myst_nb", "yaml")
# import name -> distribution name, where they differ
DIST = {"sklearn": "scikit-learn", "yaml": "pyyaml", "skimage": "scikit-image", "sklego": "scikit-lego"}
# imported directly but installed by a declared dependency (named here), not declared itself
TRANSITIVE = {"threadpoolctl": "scikit-learn"}


def _requirements():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    name = lambda req: re.split(r"[<>=!~\[ ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")
    runtime = {name(r) for r in cfg["DEFAULT"]["requirements"].split()}
    extras = {name(r) for k, v in cfg["DEFAULT"].items() if k.endswith("_requirements") and k != "dev_requirements"
              for r in v.split()}
    return runtime, extras


def _imports(tree):
    "(module name, at module level?) for every absolute import in a parsed file"
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name.split(".")[0], id(node) in top) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], id(node) in top


def test_every_third_party_import_is_declared():
    runtime, extras = _requirements()
    assert "numpy" in runtime and "pyyaml" in extras  # the parser reads settings.ini as intended
    bad = []
    for path in sorted((ROOT / "dplit").glob("*.py")):
        for mod, at_top in _imports(ast.parse(path.read_text())):
            if mod in sys.stdlib_module_names or mod in ("dplit", "__future__"):
                continue
            dist = DIST.get(mod, mod).lower().replace("_", "-")
            ok = dist in runtime or TRANSITIVE.get(mod) in runtime or (not at_top and dist in extras)
            if not ok:
                bad.append(f"{path.name}: {mod} ({'module level' if at_top else 'in a function'})")
    assert not bad, "imports not declared in settings.ini: " + "; ".join(bad)


def test_imports_and_console_without_dev_packages(tmp_path):
    code = ("import importlib.abc, sys\n"
            f"BLOCK = {DEV_ONLY!r}\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in BLOCK:\n"
            "            raise ModuleNotFoundError(f'{name} is a development package', name=name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import importlib, pkgutil, dplit\n"
            "mods = [m.name for m in pkgutil.iter_modules(dplit.__path__) if m.name not in ('book', '__main__')]\n"
            "[importlib.import_module('dplit.' + m) for m in mods]\n"
            "bad = [m for m in BLOCK if m in sys.modules]\n"
            "assert not bad, bad\n"
            "from dplit.cli import main\n"
            "main(['list'])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "analytic_gaussian" in r.stdout


@pytest.mark.slow
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
