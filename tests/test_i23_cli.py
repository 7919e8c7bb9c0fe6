"""The `dplit` command as a user meets it (issue 23): listings fit 100 columns, `bench --help` names every
benchmark, missing extras say what to install, user errors are one line and exit 2.

The truths are independent of the CLI's code: the registries (every registered name must appear whole), the
column limit, the exit status, and the absence of a Python traceback. The default tests call `main` in this
process (the registries are imported once); the `slow` ones run the command in a fresh interpreter as a user
does (each such run imports every chapter module).
"""
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dplit.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _run(capsys, *args):
    "Exit status, stdout and stderr of `dplit ARGS`, run in this process."
    try:
        status = main(list(args))
    except SystemExit as exc:                         # argparse: --help (0) and usage errors (2)
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def _dplit(*args, timeout=600, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg", COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "dplit", *args], cwd=ROOT, env=env, text=True,
                          timeout=timeout, **kw)


def _widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


@pytest.mark.parametrize("args", [("list",), ("bench", "--help"), ("--help",), ("verify", "--help"),
                                  ("audit", "--help")])
def test_every_line_fits_100_columns(capsys, monkeypatch, args):
    monkeypatch.setenv("COLUMNS", "100")              # argparse wraps its own help to $COLUMNS
    status, out, err = _run(capsys, *args)
    assert status == 0, err
    assert out.strip() and _widest(out) <= 100, (_widest(out), out[:2000])


@pytest.fixture(scope="module")
def audit_listing():
    "`dplit audit --list` once, with the audit cases it listed (each case is built once: seconds)."
    from types import SimpleNamespace

    import dplit.audit
    real = dplit.audit.registered_audits
    entries = real()
    cases = {n: e.build() for n, e in entries.items()}
    proxies = {n: SimpleNamespace(name=e.name, mechanism=e.mechanism, source=e.source,
                                  build=lambda full=False, n=n: cases[n]) for n, e in entries.items()}
    buf_out, buf_err = io.StringIO(), io.StringIO()
    dplit.audit.registered_audits = lambda: proxies
    try:
        with contextlib.redirect_stdout(buf_out), \
                contextlib.redirect_stderr(buf_err):
            status = main(["audit", "--list"])
    finally:
        dplit.audit.registered_audits = real
    return status, buf_out.getvalue(), buf_err.getvalue(), cases


def test_audit_list_fits_100_columns(audit_listing):
    status, out, err, _ = audit_listing
    assert status == 0, err
    assert _widest(out) <= 100, (_widest(out), out[:2000])


def test_audit_list_names_every_audit_whole_with_relation_and_variants(audit_listing):
    status, out, err, cases = audit_listing
    assert status == 0, err
    lines = out.splitlines()
    head = lines[0]
    assert head.split() == ["name", "mechanism", "relation", "variants", "source"]
    v0, v1 = head.index("variants"), head.index("source")       # the variants column
    for name, case in cases.items():
        (row,) = [ln for ln in lines if ln.split(" ", 1)[0] == name]     # the name is never wrapped
        assert case.relation in row, row
        i = lines.index(row)                       # the row's continuation lines start with spaces
        block = [row]
        for ln in lines[i + 1:]:
            if not ln.startswith(" "):
                break
            block.append(ln)
        cell = " ".join(ln[v0:v1].strip() for ln in block).strip()
        cell = cell.replace("_ ", "_")              # a long name may wrap after an underscore
        assert cell.split(", ") == list(case.variants), (name, cell, block)


def test_bench_help_lists_every_benchmark(capsys):
    from dplit.verify import registered_benchmarks
    status, out, err = _run(capsys, "bench", "--help")
    assert status == 0, err
    names = list(registered_benchmarks())
    assert len(names) >= 5
    listed = {ln.split()[0] for ln in out.split("\nbenchmarks:\n", 1)[1].splitlines()
              if ln.startswith("  ") and ln[2] != " "}
    assert listed == set(names), set(names) ^ listed


def test_list_names_every_check_and_benchmark(capsys):
    from dplit.verify import registered_benchmarks, registered_checks
    status, out, err = _run(capsys, "list")
    assert status == 0, err
    firsts = {ln.split()[0] for ln in out.splitlines() if ln.startswith("  ") and ln[2] != " "}
    assert firsts == set(registered_checks()) | set(registered_benchmarks())


@pytest.mark.parametrize("args, says", [
    (("bench", "no_such_bench"), "no_such_bench"),
    (("verify", "--only", "no_such_check"), "no_such_check"),
    (("audit", "no_such_audit"), "no_such_audit"),
    (("audit", "laplace", "--variant", "no_such_variant"), "no_such_variant"),
    (("audit", "laplace", "--trials", "12.5"), "whole number"),
    (("audit", "laplace", "--jobs", "0"), "--jobs"),
    (("verify", "--seed", "x"), "--seed"),
    (("frobnicate",), "invalid choice"),
])
def test_user_errors_exit_2_with_a_one_line_message(capsys, args, says):
    status, out, err = _run(capsys, *args)
    assert status == 2, (status, err)
    last = err.strip().splitlines()[-1]               # argparse prints its usage above the message
    assert says in last and "Traceback" not in err, err
    assert out == "", out


def test_an_unusable_out_folder_is_a_one_line_error_before_any_check(capsys, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    status, out, err = _run(capsys, "verify", "--only", "analytic_gaussian", "--no-progress",
                            "--out", str(blocker / "out"))
    assert status == 2, (status, err)
    assert len(err.strip().splitlines()) == 1 and "--out" in err, err
    assert out == "", out                                        # nothing ran


def test_book_without_its_extra_gives_the_install_hint(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "yaml", None)               # as if pyyaml were not installed
    monkeypatch.chdir(ROOT)
    status, out, err = _run(capsys, "book", "--out", str(tmp_path / "book"))
    assert status == 1, err
    assert 'pip install "dplit[book]"' in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "book").exists()


# --- as a user runs it: a fresh interpreter ------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("args", [("list",), ("audit", "--list"), ("bench", "--help")])
def test_fresh_process_listings_fit_100_columns(args):
    r = _dplit(*args, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert _widest(r.stdout) <= 100 and "Traceback" not in r.stderr


@pytest.mark.slow
def test_fresh_process_user_error_has_no_traceback():
    r = _dplit("verify", "--only", "no_such_check", capture_output=True)
    assert r.returncode == 2 and "no_such_check" in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.slow
def test_a_closed_pipe_is_not_a_traceback():
    "`dplit list | head -0`: the reader is gone before the first line; the command stops quietly."
    read_end, write_end = os.pipe()
    os.close(read_end)                               # every write to the pipe now fails (EPIPE)
    try:
        r = _dplit("list", stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
