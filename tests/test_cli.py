"""The `dplit` console script as a user runs it.

Most tests call the console's `main` in this process (the same argument parsing, output and exit codes, without
paying ~4 s of interpreter start and module discovery per call); `test_console_script_runs` runs the installed
script itself, and the tests that need a fresh interpreter (a namespace package, a missing extra) run one."""
import contextlib
import io
import json
import shutil
import subprocess
import sys

import pytest

from pathlib import Path

from dplit.audit import registered_audits

_NEXT_TO_PYTHON = Path(sys.executable).parent / "dplit"
DPLIT = str(_NEXT_TO_PYTHON) if _NEXT_TO_PYTHON.exists() else shutil.which("dplit")
if DPLIT is None:
    pytest.fail("the dplit console script is not installed", pytrace=False)


def run(*args, cwd=None):
    "`dplit ARGS` in this process: an object with returncode, stdout and stderr, like subprocess.run's."
    from dplit.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse's usage errors
            code = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess(list(args), code or 0, out.getvalue(), err.getvalue())


def test_console_script_runs(tmp_path):
    r = subprocess.run([DPLIT, "verify", "--only", "no_such_result"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=600)
    assert r.returncode == 2 and "unknown check 'no_such_result'" in r.stderr


def test_verify_one_check_writes_report(tmp_path):
    r = run("verify", "--only", "exponential_mechanism_softmax", "analytic_gaussian", "--out", str(tmp_path / "out"), "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed, 0 failed" in r.stdout
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [x["name"] for x in report] == ["exponential_mechanism_softmax", "analytic_gaussian"]
    assert all(x["passed"] and x["seconds"] >= 0 for x in report)


def test_unknown_check_is_a_clear_error():
    r = run("verify", "--only", "no_such_result")
    assert r.returncode == 2 and "unknown check 'no_such_result'" in r.stderr and "analytic_gaussian" in r.stderr


def test_unknown_benchmark_is_a_clear_error():
    r = run("bench", "no_such_bench")
    assert r.returncode == 2 and "unknown benchmark 'no_such_bench'" in r.stderr


def test_list_names_every_check():
    r = run("list")
    assert r.returncode == 0
    for name in ("exponential_mechanism_softmax", "analytic_gaussian", "audit_harness_selftest"):
        assert name in r.stdout


def test_book_outside_a_checkout_says_so(tmp_path):
    r = run("book", cwd=tmp_path)
    assert r.returncode == 1 and "_quarto.yml" in r.stderr


def test_bad_subcommand_exits_nonzero():
    r = run("frobnicate")
    assert r.returncode != 0


def test_discovery_survives_a_stale_namespace_folder(tmp_path):
    """An empty `dplit/` folder earlier on sys.path (what `pip install .` then `pip install -e .` leaves in
    site-packages: numba's __pycache__) makes `dplit` a namespace package; discovery must still find every check."""
    (tmp_path / "dplit" / "__pycache__").mkdir(parents=True)
    code = ("import dplit, sys; from dplit.cli import main; "
            "print('namespace' if getattr(dplit, '__file__', None) is None else 'regular'); sys.exit(main(['list']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=600,
                       env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert "analytic_gaussian" in r.stdout and "audit_harness_selftest" in r.stdout, r.stdout


def test_audit_list_names_every_registered_audit():
    r = run("audit", "--list")
    assert r.returncode == 0, r.stderr
    head, *rows = [line for line in r.stdout.splitlines() if line and not line.startswith("-")]
    assert head.split()[:5] == ["name", "mechanism", "relation", "variants", "source"]
    for name in ("laplace", "exponential", "gaussian"):
        (row,) = [line for line in rows if line.startswith(name + " ")]
        assert "substitute" in row and "correct, half_noise" in row


def test_audit_prints_bounds_next_to_the_claim():
    r = run("audit", "laplace", "--trials", "2e4", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    n_var = len(registered_audits()["laplace"].build().variants)
    assert "20,000 runs per side" in r.stdout and f"{n_var} of {n_var} variants as expected" in r.stdout
    table = r.stdout[r.stdout.index("variant"):].splitlines()
    assert table[0].split()[:9] == ["variant", "claim", "eps", "lower", "(CP)", "delta", "lower", "exact", "eps"]
    correct, half = (line.split() for line in table[2:4])
    assert correct[:2] == ["correct", "(1,"] and correct[5:8] == ["1.000", "pass", "OK"]
    assert half[0] == "half_noise" and half[5:8] == ["2.000", "caught", "OK"]
    assert float(correct[3]) <= 1.0 < float(half[3])  # the CP bound: below the claim, above it for the mutant


def test_audit_trials_accepts_float_notation_and_refuses_fractions():
    r = run("audit", "laplace", "--trials", "1.5", "--no-progress")
    assert r.returncode == 2 and "whole number" in r.stderr


def test_unknown_audit_is_a_clear_error():
    r = run("audit", "no_such_audit")
    assert r.returncode == 2 and "unknown audit 'no_such_audit'" in r.stderr and "laplace" in r.stderr


def test_scheduler_without_the_extra_names_the_install_command():
    code = ("import sys; sys.modules['distributed'] = None\n"
            "from dplit.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    for args in (["audit", "laplace", "--scheduler", "tcp://127.0.0.1:8786"],
                 ["verify", "--only", "analytic_gaussian", "--scheduler", "tcp://127.0.0.1:8786"]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)
        assert r.returncode == 2 and 'pip install "dplit[distributed]"' in r.stderr, r.stderr


def test_zero_jobs_is_a_usage_error_not_a_traceback():
    for cmd in ("verify", "audit"):
        r = run(cmd, "--jobs", "0")
        assert r.returncode == 2 and "--jobs" in r.stderr and "Traceback" not in r.stderr, r.stderr
