import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the long sweeps marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow (DPLIT_SLOW=1 tests/run.sh)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
