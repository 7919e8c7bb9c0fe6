"""Bad input to the book and verify helpers gives clear errors."""
import pytest

from dplit import book, verify


def test_quarto_without_chapters(tmp_path):
    (tmp_path / "_quarto.yml").write_text("book:\n  title: x\n")
    with pytest.raises(ValueError, match="book.chapters"):
        book.read_book(tmp_path / "_quarto.yml")


def test_quarto_listing_a_missing_chapter(tmp_path):
    (tmp_path / "_quarto.yml").write_text("book:\n  chapters:\n    - nbs/nothere.ipynb\n")
    with pytest.raises(FileNotFoundError, match="nothere"):
        book.read_book(tmp_path / "_quarto.yml")


def test_no_checkout(tmp_path):
    with pytest.raises(FileNotFoundError, match="_quarto.yml"):
        book.find_root(tmp_path)


def test_mathjax_missing_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("DPLIT_MATHJAX", str(tmp_path))
    monkeypatch.setattr(book, "_MATHJAX_CANDIDATES", ())
    with pytest.raises(FileNotFoundError, match="libjs-mathjax"):
        book.find_mathjax()


def test_check_returning_incomplete_record():
    @verify.register_check("_bad_record", "returns nothing useful")
    def _bad(full=False, rng=None):
        return {"measured": "1"}
    try:
        with pytest.raises(TypeError, match="passed"):
            _bad()
    finally:
        verify._CHECKS.pop("_bad_record")


def test_quarto_listing_a_chapter_of_unknown_kind(tmp_path):
    (tmp_path / "ch.qmd").write_text("# x\n")
    (tmp_path / "_quarto.yml").write_text("book:\n  chapters:\n    - ch.qmd\n")
    with pytest.raises(ValueError, match="ch.qmd"):
        book.read_book(tmp_path / "_quarto.yml")


def test_appendices_become_the_last_part(tmp_path):
    for n in ("a.md", "b.md"):
        (tmp_path / n).write_text("# x\n")
    (tmp_path / "_quarto.yml").write_text("book:\n  chapters:\n    - a.md\n  appendices:\n    - b.md\n")
    assert book.read_book(tmp_path / "_quarto.yml")["parts"][-1] == ("Appendices: tooling", ["b.md"])


def test_build_refuses_to_overwrite_a_folder_that_is_not_a_book(tmp_path):
    (tmp_path / "a.md").write_text("# x\n")
    (tmp_path / "_quarto.yml").write_text("book:\n  chapters:\n    - a.md\n")
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("do not delete")
    with pytest.raises(FileExistsError, match="precious"):
        book.build_book(tmp_path / "_quarto.yml", out=out)
    assert (out / "thesis.tex").read_text() == "do not delete"


def test_normalise_markdown_keeps_unpaired_dollars():
    # an odd number of $$ (a typo in a source) is left for the book test to report, not silently rewritten
    assert book.normalise_markdown("costs $$5 and more") == "costs $$5 and more"
