"""Every figure of the book has a numbered caption with a reading, and alt text (issue 40).

The caption and the alt text are Quarto's cell options on the code that draws the figure
(``#| fig-cap:`` and ``#| fig-alt:``, see "Figures with numbered captions and alt text" in
nbs/05_book.ipynb); the book turns them into a numbered MyST-NB figure. The rule holds for every
notebook in nbs/ (found, not listed), so a new figure without a caption fails.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dplit.book import figure_options, process_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "nbs").glob("*.ipynb"))


def _figure_cells(nb: dict) -> list:
    return [c for c in nb["cells"] if c["cell_type"] == "code" and any(
        k.startswith("image/") for o in c.get("outputs", []) for k in o.get("data", {}))]


def _with_figures() -> list:
    return [ch for ch in NOTEBOOKS if _figure_cells(json.loads(
        (ROOT / "nbs" / f"{ch}.ipynb").read_text(encoding="utf-8")))]


def test_notebooks_are_found():
    "Discovery finds the book's notebooks, and the chapters known to draw figures among them."
    assert len(NOTEBOOKS) >= 30
    assert {"13_tukey", "21_dpsis", "40_dpgp", "53_bss_experiments"} <= set(_with_figures())


def uncaptioned(nb: dict) -> list:
    "What is missing from each figure cell of a notebook: a caption that reads it, alt text."
    bad = []
    for c in _figure_cells(nb):
        src = "".join(c["source"])
        opts = figure_options(src)
        first = next((ln for ln in src.splitlines() if not ln.startswith("#|")), "")[:60]
        cap, alt = opts.get("fig-cap", ""), opts.get("fig-alt", "")
        # a caption says what the figure shows and how to read it: a sentence, not a title
        if len(cap.split()) < 8 or not cap.rstrip().endswith((".", ")")):
            bad.append(f"{first!r}: caption {cap!r} is not a sentence that reads the figure")
        # alt text describes the picture for a reader who cannot see it (not a file name)
        if len(alt.split()) < 8 or alt.lower().endswith((".png", ".svg")):
            bad.append(f"{first!r}: alt text {alt!r} does not say what the figure shows")
    return bad


@pytest.mark.parametrize("chapter", NOTEBOOKS)
def test_every_figure_has_a_caption_and_alt_text(chapter):
    bad = uncaptioned(json.loads((ROOT / "nbs" / f"{chapter}.ipynb").read_text(encoding="utf-8")))
    assert not bad, f"{chapter}:\n" + "\n".join(bad)


def test_a_new_uncaptioned_figure_fails():
    "A figure cell planted without options, with a title for a caption, or a path for alt text."
    png = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBOR"}}
    cell = lambda src: {"cell_type": "code", "source": src, "outputs": [png], "metadata": {}}
    good = ('#| fig-cap: "Recovery against n: mistakes passes one half first, Samp-Agg last."\n'
            '#| fig-alt: "Two panels of lines, share of exact recoveries against n, log axis."\n'
            "plt.plot(x)")
    assert uncaptioned({"cells": [cell(good)]}) == []
    assert len(uncaptioned({"cells": [cell("plt.plot(x)")]})) == 2
    title = good.replace("Recovery against n: mistakes passes one half first, Samp-Agg last.",
                         "Recovery")
    assert len(uncaptioned({"cells": [cell(title)]})) == 1
    path = good.replace("Two panels of lines, share of exact recoveries against n, log axis.",
                        "figures/recovery against n for the four methods.png")
    assert len(uncaptioned({"cells": [cell(path)]})) == 1


@pytest.mark.parametrize("chapter", _with_figures())
def test_the_book_numbers_every_figure(chapter, tmp_path):
    "The processed chapter (what Sphinx reads) gives every image a named, captioned figure."
    out = process_notebook(ROOT / "nbs" / f"{chapter}.ipynb", tmp_path / "x.ipynb")
    cells = json.loads(out.read_text(encoding="utf-8"))["cells"]
    # MyST-NB skips a code cell whose source is empty, with its outputs: a figure or table split
    # off a captioned cell would vanish from the page
    assert all("".join(c["source"]).strip() for c in cells
               if c["cell_type"] == "code" and c.get("outputs")), "an output cell without source"
    figs = [c for c in cells if c["cell_type"] == "code" and any(
        k.startswith("image/") for o in c.get("outputs", []) for k in o.get("data", {}))]
    assert figs, f"{chapter} has no figure: take it off the list"
    names = []
    for c in figs:
        meta = c["metadata"].get("mystnb", {})
        assert meta.get("figure", {}).get("caption"), "a figure without its caption"
        assert meta.get("image", {}).get("alt"), "a figure without alt text"
        images = sum(any(k.startswith("image/") for k in o.get("data", {})) for o in c["outputs"])
        rich = [o for o in c["outputs"] if o["output_type"] in ("display_data", "execute_result")]
        assert images == 1 and len(rich) == 1, "one figure per figure cell, no table inside it"
        names.append(meta["figure"]["name"])
    assert len(set(names)) == len(names), "figure names must be unique (Sphinx numbers them)"
