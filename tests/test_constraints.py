"""The pinned install (issue 20): the README states the versions the suite was verified with, and they are the
ones constraints.txt pins; the pins cover every runtime requirement, so `pip install -c constraints.txt .` is
reproducible."""
import re
from configparser import ConfigParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pins():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt line is not NAME==VERSION: {line!r}"
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_readme_versions_are_the_pinned_ones():
    readme = (ROOT / "README.md").read_text()
    stated = dict(re.findall(r"(numpy|scipy|scikit-learn|numba|pandas|cvxpy|PySCIPOpt|highspy)\s+(\d[\w.]*)",
                             readme.split("last verified with", 1)[1][:400]))
    assert len(stated) == 8, stated
    pins = _pins()
    for name, version in stated.items():
        assert pins[name.lower()] == version, (name, version, pins.get(name.lower()))


def test_every_requirement_is_pinned():
    cfg = ConfigParser(delimiters=["="])
    cfg.read(ROOT / "settings.ini")
    pins = _pins()
    for key in ("requirements", "dev_requirements", "book_requirements", "data_requirements"):
        for req in cfg["DEFAULT"][key].split():
            name = re.split(r"[<>=!\[]", req, 1)[0].lower().replace("_", "-")
            assert name in pins, f"{name} ({key}) is not pinned in constraints.txt"
