"""`dplit book` fails on a Sphinx warning (issue 22).

The slow test builds a tiny book whose page links to a page and to a public name that do not exist: the build is
refused, both broken references are named, and nothing is written to the output folder (one Sphinx build, ~10 s on
an idle machine). The fast test checks the wiring without Sphinx: the default build asks Sphinx for warnings as
errors and `nitpicky`, and a failing Sphinx run raises with its warnings."""
import subprocess
from pathlib import Path

import pytest

from dplit import book as bk


def _tiny_book(tmp_path, page):
    (tmp_path / "_quarto.yml").write_text("book:\n  title: tiny\n  chapters:\n    - front.md\n    - page.md\n")
    (tmp_path / "front.md").write_text("# Front\n\nThe front page.\n")
    (tmp_path / "page.md").write_text(page)
    return tmp_path / "_quarto.yml"


def test_default_build_is_strict(tmp_path, monkeypatch):
    mathjax = tmp_path / "mj"
    mathjax.mkdir()
    (mathjax / "MathJax.js").write_text("")
    monkeypatch.setattr(bk, "find_mathjax", lambda: mathjax)
    seen = {}

    def fake_sphinx(cmd, **kw):
        src = Path(cmd[cmd.index("-d") + 2])  # sphinx ... -d DOCTREES SRC OUT
        seen.update(cmd=cmd, conf=(src / "conf.py").read_text(), api=(src / bk.API_PAGE).is_file())
        Path(cmd[cmd.index("-w") + 1]).write_text("page.md:3: WARNING: broken\n")
        return subprocess.CompletedProcess(cmd, 1, "", "")

    monkeypatch.setattr(bk.subprocess, "run", fake_sphinx)
    out = tmp_path / "_book"
    with pytest.raises(RuntimeError, match="WARNING: broken"):
        bk.build_book(config=_tiny_book(tmp_path, "# Page\n"), out=out)
    assert "-W" in seen["cmd"] and "--keep-going" in seen["cmd"]
    assert "nitpicky = True" in seen["conf"] and seen["api"], "no nitpicky conf or no API reference page"
    assert not out.exists(), "a failed build wrote its output"


@pytest.mark.slow
def test_broken_references_fail_the_build(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    try:
        bk.find_mathjax()
    except FileNotFoundError:
        pytest.skip("no local MathJax")
    config = _tiny_book(tmp_path, "# Page\n\nSee [a page that is not there](missing.md) and "
                                  "{py:obj}`a name without an entry <dplit.nowhere.nothing>`.\n")
    out = tmp_path / "_book"
    with pytest.raises(RuntimeError, match="WARNING") as err:
        bk.build_book(config=config, out=out)
    assert "missing" in str(err.value) and "dplit.nowhere.nothing" in str(err.value), str(err.value)
    assert not out.exists(), "a failed build wrote its output"
