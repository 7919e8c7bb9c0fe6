"""`dplit book` fails on a Sphinx warning (issue 22): a tiny book whose page links to a page and to a public name that
do not exist is refused, both broken references are named, and nothing is written to the output folder. One small
Sphinx build (a few seconds)."""
import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")
from dplit.book import build_book, find_mathjax  # noqa: E402


def test_broken_references_fail_the_build(tmp_path):
    try:
        find_mathjax()
    except FileNotFoundError:
        pytest.skip("no local MathJax")
    (tmp_path / "_quarto.yml").write_text("book:\n  title: tiny\n  chapters:\n    - front.md\n    - page.md\n")
    (tmp_path / "front.md").write_text("# Front\n\nThe front page.\n")
    (tmp_path / "page.md").write_text("# Page\n\nSee [a page that is not there](missing.md) and "
                                      "{py:obj}`a name without an entry <dplit.nowhere.nothing>`.\n")
    out = tmp_path / "_book"
    with pytest.raises(RuntimeError, match="WARNING") as err:
        build_book(config=tmp_path / "_quarto.yml", out=out)
    assert "missing" in str(err.value) and "dplit.nowhere.nothing" in str(err.value), str(err.value)
    assert not out.exists(), "a failed build wrote its output"
