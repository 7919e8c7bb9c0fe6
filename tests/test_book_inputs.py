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
