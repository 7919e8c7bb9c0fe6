"""The book's notes on silent code cells (issue 22) cannot hide a lost output.

`silent_note` gives a note only to slow cells, checks and pure definitions. The independent truth here is the
saved outputs of the book's own chapters: any non-slow code cell that HAS an output must be classified as needing
one (no note), so that the same cell with its output cleared would fail the book test. Fast (no rendering)."""
import json
import re

from dplit.book import process_cell, read_book, silent_note


def _cell(src, outputs=()):
    return {"cell_type": "code", "metadata": {}, "source": src, "outputs": list(outputs), "execution_count": 1}


def test_display_cells_whose_output_was_cleared_get_no_note():
    for code in ["df", "x = f(1)\nx", "print(x)", "display(t)", "fig = plot_sweep(rows)", "_ = ax.plot(x, y)",
                 "fig, ax = plt.subplots()", "for r in rows:\n    print(r)", "rows = [f(x) for x in xs]\nrows[:3]",
                 "assert f(1) == 1\nprint('ok')", "with np.errstate(all='ignore'):\n    plt.hist(x)",
                 "if True:\n    t", "x = (", ""]:
        assert silent_note(code) == "", code
        cells = process_cell(_cell(code))  # an empty cell is dropped from the book
        assert all(c["outputs"] == [] for c in cells) and len(cells) == bool(code), code


def test_checks_definitions_and_slow_cells_get_their_note():
    assert "a check" in silent_note("assert f(1) == 1\nx = 2\ntest_eq(x, 2)")
    assert "a check" in silent_note("for b in [0, -1]:\n    test_fail(lambda: plot_x(b), contains='b')")
    assert "only defines <code>g</code>" in silent_note("def g():\n    print('drawn later')")
    assert "only defines <code>a</code>" in silent_note("import numpy as np\na = np.zeros(3)")
    slow = silent_note("print(run())", slow=True, chapter="15_pipelines.ipynb")
    assert "nbdev_test --flags slow --path nbs/15_pipelines.ipynb" in slow
    (c,) = process_cell(_cell("#| slow\nprint(run())"), chapter="15_pipelines.ipynb")
    assert "dplit-note" in c["outputs"][0]["data"]["text/html"]


def test_every_book_cell_with_output_is_classified_as_needing_it():
    "Against the chapters' saved outputs: a cell that shows something must not be one the note would excuse."
    book, excused = read_book(), []
    for _, chapters in book["parts"]:
        for ch in chapters:
            p = book["root"] / ch
            if p.suffix != ".ipynb":
                continue
            for c in json.loads(p.read_text())["cells"]:
                src = "".join(c["source"])
                if c["cell_type"] != "code" or not c.get("outputs") or re.search(r"^\s*#\|\s*(slow|export)", src, re.M):
                    continue
                code = "\n".join(l for l in src.splitlines() if not re.match(r"\s*#\|", l))
                if silent_note(code):
                    excused.append(f"{ch}: {code.strip()[:80]}")
    assert not excused, "cells with output that would get a note if it were cleared:\n" + "\n".join(excused)
