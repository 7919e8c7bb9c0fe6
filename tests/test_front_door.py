"""The front door (issue 23): one import, the README's examples, the CLI's manners, quiet solvers.

Each test runs what a new user runs (a fresh interpreter where it matters) and compares with an independent
truth: the README's own text, settings.ini, the registries, the column limit.
"""
import configparser
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "cvxpy", "sklearn", "scipy", "pyscipopt", "highspy", "matplotlib", "pandas")


def _python(code: str, cwd=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd or ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _dplit(*args, cwd=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "dplit", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _dplit_here(*args, cwd=None):
    "`dplit ARGS` in this process: the console's own `main` (tests/test_cli.py's runner, shared)."
    from test_cli import run
    return run(*args, cwd=cwd)


def _readme() -> str:
    return (ROOT / "README.md").read_text()


# --- one import -------------------------------------------------------------------------------------------

def _table_names() -> list[str]:
    "Every backticked name in the README's 'What you can use' table."
    text = _readme().split("## What you can use", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    names = re.findall(r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?`", "\n".join(rows))
    assert len(names) >= 25, names
    return names


def test_every_name_in_the_readme_table_imports_from_dplit():
    import importlib

    import dplit
    missing = []
    for name in _table_names():
        if "." in name:                          # a module the table points to, e.g. dplit.audit
            try:
                importlib.import_module(name)
            except ImportError:
                missing.append(name)
        elif not hasattr(dplit, name):
            missing.append(name)
    assert not missing, f"README table names that do not import: {missing}"


def test_front_door_names_are_the_table_plus_nothing_hidden():
    import dplit
    bare = {n for n in _table_names() if "." not in n}
    assert bare <= set(dplit.__all__), bare - set(dplit.__all__)
    assert set(dplit.__all__) <= set(dir(dplit))
    for name in dplit.__all__:                   # each is the object its chapter module defines
        obj = getattr(dplit, name)
        module = sys.modules[obj.__module__]
        assert getattr(module, name) is obj and obj.__module__.startswith("dplit."), name


def test_import_dplit_loads_no_heavy_dependency():
    r = _python("import sys, dplit\n"
                f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
                "from dplit import *\n"
                "print(len([n for n in dplit.__all__ if n in globals()]), len(dplit.__all__))")
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first == "[]", f"import dplit imported {first}"
    n_star, n_all = second.split()
    assert n_star == n_all and int(n_all) >= 25


def test_unknown_name_is_an_attribute_error():
    import dplit
    with pytest.raises(AttributeError, match="no_such_thing"):
        dplit.no_such_thing
    assert dplit.mechanisms.peel_top_k is dplit.peel_top_k        # submodules load lazily too


def test_version_from_settings_ini():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    version = cfg["DEFAULT"]["version"]
    import dplit
    assert dplit.__version__ == version
    r = _dplit("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"dplit {version}", r.stdout + r.stderr


def test_python_m_dplit_is_the_dplit_command():
    r = _dplit("list")
    assert r.returncode == 0 and "analytic_gaussian" in r.stdout, r.stderr
    r = _dplit()
    assert r.returncode == 2 and "usage: dplit" in r.stderr and "Traceback" not in r.stderr


# --- the README's examples run ---------------------------------------------------------------------------

def _python_blocks() -> list[str]:
    return [b.split("```", 1)[0] for b in _readme().split("```python\n")[1:]]


def test_readme_has_python_examples_using_the_front_door():
    blocks = _python_blocks()
    assert len(blocks) >= 2
    for b in blocks:
        assert re.search(r"^from dplit import ", b, re.M), b
        assert not re.search(r"^from dplit\.\w+ import ", b, re.M), b


@pytest.mark.parametrize("i", range(len(_python_blocks())))
def test_readme_python_example_runs(i, tmp_path):
    r = _python(_python_blocks()[i], cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert r.stdout.strip(), "an example that prints nothing shows nothing"


def test_readme_estimator_example_reports_the_whole_spend(tmp_path):
    "The estimator example composes every step that sees the data (no non-private fit left out)."
    block = next(b for b in _python_blocks() if "make_pipeline" in b)
    assert "LinearRegression" not in block
    r = _python(block, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    spent = next(line for line in r.stdout.splitlines() if line.startswith("spent in all:"))
    assert "(1, delta=1e-06)-DP" in spent, spent          # 0.5 + 0.5, delta of the regressor
    r2 = float(r.stdout.rsplit("test R²:", 1)[1])
    assert r2 > 0.5, r.stdout                              # a useful private model, not noise


# --- the command line ------------------------------------------------------------------------------------

def test_dplit_list_fits_100_columns():
    r = _dplit_here("list")
    assert r.returncode == 0, r.stderr
    widths = [len(line) for line in r.stdout.splitlines()]
    assert max(widths) <= 100, max(widths)
    from dplit.verify import registered_benchmarks, registered_checks
    for name in list(registered_checks()) + list(registered_benchmarks()):
        assert re.search(rf"^  {re.escape(name)}( |$)", r.stdout, re.M), name


def test_dplit_bench_help_lists_every_benchmark():
    r = _dplit_here("bench", "--help")
    assert r.returncode == 0, r.stderr
    from dplit.verify import registered_benchmarks
    names = list(registered_benchmarks())
    assert names and all(re.search(rf"^  {re.escape(n)} ", r.stdout, re.M) for n in names), r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 100


def test_dplit_book_without_its_extra_gives_the_install_hint(monkeypatch, capsys):
    from dplit.cli import main
    monkeypatch.setitem(sys.modules, "yaml", None)        # as if pyyaml were not installed
    monkeypatch.chdir(ROOT)
    assert main(["book", "--out", str(ROOT / "_book_never_written")]) == 1
    err = capsys.readouterr().err
    assert 'pip install "dplit[book]"' in err and "Traceback" not in err, err
    assert not (ROOT / "_book_never_written").exists()


@pytest.mark.parametrize("args, status, says", [
    (("bench", "no_such_bench"), 2, "no_such_bench"),
    (("verify", "--only", "no_such_check"), 2, "no_such_check"),
    (("audit", "no_such_audit"), 2, "no_such_audit"),
    (("audit", "laplace", "--trials", "12.5"), 2, "whole number"),
    (("frobnicate",), 2, "invalid choice"),
])
def test_user_errors_have_no_traceback(args, status, says):
    r = _dplit_here(*args)
    assert r.returncode == status and says in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_dplit_readme_outside_a_checkout_is_a_message(tmp_path):
    r = _dplit_here("readme", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("dplit readme:"), r.stderr
    assert "Traceback" not in r.stderr


# --- quiet solvers, errors that name the class to use ----------------------------------------------------

def test_highs_prints_its_banner_unless_dplit_silences_it():
    "The truth first: a bare first HiGHS model prints a banner on stdout; inside dplit's guard it does not."
    bare = _python("import highspy\nhighspy.Highs()\nprint('end')")
    assert bare.returncode == 0 and "HiGHS" in bare.stdout, bare.stdout      # else this test proves nothing
    guarded = _python("from dplit.bss import _quiet_native\nimport highspy\n"
                      "with _quiet_native():\n    highspy.Highs()\nprint('end')")
    assert guarded.returncode == 0 and guarded.stdout == "end\n" and "HiGHS" not in guarded.stderr, guarded
    loud = _python("from dplit.bss import _quiet_native, solver_verbose\nimport highspy\n"
                   "solver_verbose(True)\nwith _quiet_native():\n    highspy.Highs()\nprint('end')")
    assert "HiGHS" in loud.stdout, loud.stdout


def test_searches_print_nothing_of_their_own(tmp_path):
    code = """
import warnings
import numpy as np
import dplit
from dplit.bss_mip import mip9_top_r
warnings.simplefilter("ignore")
g = np.random.default_rng(0)
X = g.normal(size=(200, 12)) / 4
y = X[:, :2] @ [1.0, 1.0] + 0.1 * g.normal(size=200)
dplit.BestSubsetSelector(s=2, random_state=0, search=dplit.MIPSearch()).fit(X, y / 4)
dplit.BestSubsetSelector(s=2, loss="hinge", random_state=0, search=dplit.HingeOASearch()).fit(X, np.sign(y))
mip9_top_r(X, y / 4, 2, 2, r=1.1)
print("end")
"""
    r = _python(code, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout == "end\n", r.stdout
    assert not any(w in r.stderr for w in ("HiGHS", "SCIP", "GMP", "SoPlex")), r.stderr


def test_dplit_verify_prints_no_solver_output(tmp_path):
    r = _dplit("verify", "--only", "bss_samp_agg_l1svm", "bss_mip_hinge_cut_validity", "--no-progress",
               "--out", str(tmp_path / "out"), timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed, 0 failed" in r.stdout
    for word in ("HiGHS", "Running", "GMP", "SCIP version", "Copyright"):
        assert word not in r.stdout and word not in r.stderr, word


def test_exhaustive_backend_names_the_classes_to_use():
    import numpy as np
    import dplit
    g = np.random.default_rng(0)
    X, y = g.normal(size=(50, 40)) / 4, g.normal(size=50) / 4
    with pytest.raises(ValueError, match=r"MIPSearch\(\).*HingeOASearch\(\)"):
        dplit.BestSubsetSelector(s=8, random_state=0).fit(X, y)


def test_a_backend_with_the_exponential_method_is_refused_before_any_draw(monkeypatch):
    import numpy as np
    import dplit
    import dplit.bss as bss
    g = np.random.default_rng(0)
    X, y = g.normal(size=(50, 6)) / 4, g.normal(size=50) / 4
    def no_draw(*a, **k):
        raise AssertionError("the mechanism ran")
    monkeypatch.setattr(bss, "exponential_support_select", no_draw)
    with pytest.raises(ValueError, match="search"):
        dplit.BestSubsetSelector(s=2, method="exponential", search=dplit.MIPSearch(), random_state=0).fit(X, y)
    with pytest.raises(AssertionError, match="ran"):       # without a backend the mechanism runs
        dplit.BestSubsetSelector(s=2, method="exponential", random_state=0).fit(X, y)


def test_ctrl_c_is_a_message_and_status_130(monkeypatch, capsys):
    import dplit.cli as cli
    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "_list", interrupted)
    assert cli.main(["list"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "dplit list: interrupted", err
