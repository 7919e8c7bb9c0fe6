"""The solver-silencing guard `dplit.bss._quiet_native` (issue 23 review).

It points file descriptors 1 and 2 at the null device around native solves. The truths tested here, each
in a fresh interpreter whose real stdout/stderr are pipes we read: (1) overlapping uses from two threads
(joblib's threading backend) leave both descriptors restored; (2) what Python itself prints inside the
guard, a warning above all (e.g. a ClippingWarning during a solve), still arrives, while a raw write to
the descriptor (what a C solver does) is dropped; (3) an exception inside the guard restores both
descriptors and its traceback is seen.
"""
import subprocess
import sys
import warnings

from dplit.bss import _quiet_native


def _python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_overlapping_threads_restore_the_descriptors():
    code = """
import os, threading, time
from dplit.bss import _quiet_native
a_in, b_in = threading.Event(), threading.Event()
def a():
    with _quiet_native():
        a_in.set(); b_in.wait()          # a leaves while b is still inside
def b():
    a_in.wait()
    with _quiet_native():
        b_in.set(); time.sleep(0.2)
ts = [threading.Thread(target=f) for f in (a, b)]
[t.start() for t in ts]; [t.join() for t in ts]
os.write(1, b"out after\\n"); os.write(2, b"err after\\n")
"""
    r = _python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "out after\n" and r.stderr == "err after\n", r


def test_python_output_passes_native_output_does_not():
    code = """
import os, sys, warnings
from dplit.bss import _quiet_native
with _quiet_native():
    os.write(1, b"NATIVE-OUT\\n"); os.write(2, b"NATIVE-ERR\\n")
    print("python out"); print("python err", file=sys.stderr)
    warnings.warn("clipped during the solve")
print("after")
"""
    r = _python(code)
    assert r.returncode == 0, r.stderr
    assert "NATIVE" not in r.stdout + r.stderr, r          # the guard does drop raw descriptor writes
    assert r.stdout == "python out\nafter\n", r.stdout
    assert "python err" in r.stderr and "UserWarning: clipped during the solve" in r.stderr, r.stderr


def test_an_exception_inside_restores_and_is_seen():
    code = """
import os
from dplit.bss import _quiet_native
try:
    with _quiet_native():
        raise ValueError("inside")
except ValueError:
    os.write(1, b"restored\\n")
with _quiet_native():
    raise KeyError("uncaught inside")
"""
    r = _python(code)
    assert r.returncode == 1 and r.stdout == "restored\n", r
    assert "KeyError: 'uncaught inside'" in r.stderr, r.stderr


def test_under_pytest_capture_python_output_is_captured(capfd):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _quiet_native():
            print("inside")
            warnings.warn("seen")
    assert capfd.readouterr().out == "inside\n"
    assert [str(w.message) for w in caught] == ["seen"]
