"""Dask as the scale-out engine: a LocalCluster of two worker processes on the loopback address stands in for a
cluster. A sweep, a verify check and a registered audit give the same numbers on it as in this process, through a
client and through the scheduler's address (what `--scheduler tcp://host:8786` does)."""
import re

import pytest

distributed = pytest.importorskip("distributed", reason='the Dask extra: pip install "dplit[distributed]"')

from dplit import core
from dplit.audit import audit, primitive_audit_cases, run_audit
from dplit.core import run_sweep
from dplit.verify import run_checks


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cl:
        yield cl
        client = core._CLIENTS.pop(cl.scheduler_address, None)
        if client is not None:
            client.close()


def test_sweep_is_the_same_on_the_cluster(cluster):
    task = lambda s, g: (s, float(g.normal()), int(g.integers(2**62)))
    local = run_sweep(task, [1, 2, 3], repeats=2, rng=9, progress=False)
    assert run_sweep(task, [1, 2, 3], repeats=2, rng=9, scheduler=cluster.scheduler_address, progress=False) == local
    assert run_sweep(task, [1, 2, 3], repeats=2, rng=9, n_jobs=2, progress=False) == local


def test_verify_check_is_the_same_on_the_cluster(cluster):
    strip = lambda r: {k: v for k, v in r.as_dict().items() if k != "seconds"}
    (local,) = run_checks(["exponential_mechanism_softmax"], seed=5, progress=False)
    (remote,) = run_checks(["exponential_mechanism_softmax"], seed=5, progress=False, scheduler=cluster.scheduler_address)
    assert strip(remote) == strip(local) and local.passed


def test_registered_audit_is_the_same_on_the_cluster(cluster):
    local = run_audit("laplace", n_trials=20_000, rng=5)
    remote = run_audit("laplace", n_trials=20_000, rng=5, scheduler=cluster.scheduler_address)
    assert [(r.variant, r.result, r.exact_epsilon) for r in remote] == \
           [(r.variant, r.result, r.exact_epsilon) for r in local]
    assert len(local) >= 2 and all(r.ok for r in local)


def test_chunked_audit_is_the_same_on_the_cluster(cluster):
    mech = primitive_audit_cases(1.0)["gaussian"][0]
    kw = dict(epsilon=1.0, delta=1e-5, n_trials=30_000, vectorized=True, chunk_size=4_000, rng=2)
    assert audit(mech, 0.0, 1.0, **kw, scheduler=cluster.scheduler_address) == audit(mech, 0.0, 1.0, **kw)


def test_cli_on_the_cluster_prints_the_local_numbers(cluster, capsys):
    from dplit.cli import main
    args = ["audit", "laplace", "--trials", "2e4", "--no-progress"]
    rows = lambda out: [re.sub(r"\s+[\d.]+$", "", line) for line in out.splitlines()
                        if line.startswith(("correct", "half_noise"))]
    assert main(args) == 0
    local = rows(capsys.readouterr().out)
    assert main(args + ["--scheduler", cluster.scheduler_address]) == 0
    assert len(local) == 2 and rows(capsys.readouterr().out) == local
