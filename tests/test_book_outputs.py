"""What the saved outputs show a reader: no machine paths, figures legible in the column (issue 40).

Every notebook in nbs/ is read (found, not listed). Two rules:

* No saved output (printed text, warnings, tables, tracebacks) holds a path of the machine that ran
  it: a warning is shown as ``ClippingWarning: message`` (the notebooks set
  ``warnings.formatwarning``), not ``/tmp/ipykernel_…/….py:15: ClippingWarning: …``.
* Every figure's smallest label is at least 9 px high on screen. The book shows a PNG at its pixel
  width, shrunk to the text column (784 px at a 1280 px window) when wider; a label of ``f`` points
  in a PNG drawn at ``dpi`` is ``f * dpi / 72`` px in the file, times the shrink factor on screen.
  The smallest size is read from the code that draws the figure: the cell and the plot helpers it
  calls (functions defined in the notebooks), ``fontsize=``/``labelsize=`` values and
  matplotlib's default of 10 pt. A size set another way (rcParams, ``prop=``) is not seen: the
  rule is a floor for the common case, checked against the PNG actually saved.

Figures that break a rule and cannot be redrawn cheaply are listed in `KNOWN` with the reason (a
slow cell whose inputs take long to recompute); an entry that no longer fails is an error, so the
list only shrinks.
"""
from __future__ import annotations

import base64
import json
import re
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "nbs").glob("*.ipynb"))
COLUMN_PX = 784  # the text column at a 1280 px window (sphinx-book-theme)
MIN_LABEL_PX = 9.0
DEFAULT_PT = 10.0  # matplotlib's font.size: tick labels, axis labels and legends by default

_PATH = re.compile(r"/tmp/ipykernel_\d+|/home/[\w.-]+/|/work/|/root/|site-packages/|/\.venv/")

# (chapter, rule, a line of the cell's source) -> why it is not fixed yet
KNOWN = {
}


def _cells(chapter: str) -> list:
    return json.loads((ROOT / "nbs" / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]


def _text(o: dict) -> str:
    parts = ["".join(o.get("text", ""))] if o.get("output_type") == "stream" else []
    for k in ("text/plain", "text/html", "text/markdown"):
        v = o.get("data", {}).get(k)
        if v:
            parts.append("".join(v) if isinstance(v, list) else v)
    parts += o.get("traceback", [])
    return "\n".join(parts)


def _first_hits(cells: list, find) -> list:
    "(cell source, what `find` returned) for the first faulty output of each code cell."
    hits = []
    for c in cells:
        if c.get("cell_type") != "code":
            continue
        src = "".join(c["source"])
        for o in c.get("outputs", []):
            r = find(src, o)
            if r is not None:
                hits.append((src, r))
                break
    return hits


def machine_paths(cells: list) -> list[tuple[str, str]]:
    "(cell source, the path in context) for each cell with an output that shows a machine path."
    def find(src, o):
        t = _text(o)
        m = _PATH.search(t)
        return t[max(0, m.start() - 20): m.end() + 40].replace("\n", " ") if m else None
    return _first_hits(cells, find)


def _png_size(b64: str) -> tuple[int, float]:
    "Pixel width and dots per inch (pHYs chunk; matplotlib writes it) of a base64 PNG."
    raw = base64.b64decode(b64)
    width = struct.unpack(">I", raw[16:20])[0]
    i, dpi = 8, 72.0
    while i + 8 <= len(raw):
        n, kind = struct.unpack(">I", raw[i:i + 4])[0], raw[i + 4:i + 8]
        if kind == b"pHYs":
            ppu, _, unit = struct.unpack(">IIB", raw[i + 8:i + 17])
            dpi = ppu * 0.0254 if unit == 1 else dpi
            break
        if kind == b"IDAT":
            break
        i += 12 + n
    return width, dpi


_SIZE = re.compile(r"\b(?:fontsize|labelsize)\s*=\s*(\d+(?:\.\d+)?)")
_DEF = re.compile(r"^def (\w+)\(", re.M)


def helpers(chapters=NOTEBOOKS) -> dict:
    "{name: source} of every function defined at the top of a code cell of the notebooks."
    out = {}
    for ch in chapters:
        for c in _cells(ch):
            if c["cell_type"] != "code":
                continue
            src = "".join(c["source"])
            starts = [m for m in _DEF.finditer(src)]
            for m, nxt in zip(starts, starts[1:] + [None]):
                out[m.group(1)] = src[m.start(): nxt.start() if nxt else len(src)]
    return out


def smallest_label_px(src: str, png_b64: str, funcs: dict) -> float:
    """On-screen height in px of the smallest label the drawing code asks for: the sizes in the
    cell and in the helpers it calls (one level), matplotlib's default otherwise."""
    code = src + "".join(funcs[n] for n in set(re.findall(r"\b(\w+)\(", src)) if n in funcs)
    sizes = [float(v) for v in _SIZE.findall(code)] + [DEFAULT_PT]
    width, dpi = _png_size(png_b64)
    return min(sizes) * dpi / 72 * min(1.0, COLUMN_PX / width)


def illegible(cells: list, funcs: dict) -> list[tuple[str, float]]:
    "(cell source, px) of each figure whose smallest label is under MIN_LABEL_PX on screen."
    def find(src, o):
        png = o.get("data", {}).get("image/png")
        px = smallest_label_px(src, png, funcs) if png else None
        return px if px is not None and px < MIN_LABEL_PX else None
    return _first_hits(cells, find)


def _known(chapter: str, rule: str, src: str) -> bool:
    return any(ch == chapter and r == rule and line in src for ch, r, line in KNOWN)


@pytest.fixture(scope="module")
def funcs():
    return helpers()


@pytest.mark.parametrize("chapter", NOTEBOOKS)
def test_no_machine_paths_in_saved_outputs(chapter):
    bad = [f"{src[:50]!r}: ...{ctx}..." for src, ctx in machine_paths(_cells(chapter))
           if not _known(chapter, "path", src)]
    assert not bad, f"{chapter}: outputs with a machine path:\n" + "\n".join(bad)


@pytest.mark.parametrize("chapter", NOTEBOOKS)
def test_figure_labels_legible_in_the_column(chapter, funcs):
    bad = [f"{src[:60]!r}: smallest label {px:.1f} px"
           for src, px in illegible(_cells(chapter), funcs) if not _known(chapter, "legible", src)]
    assert not bad, (f"{chapter}: labels under {MIN_LABEL_PX:g} px in the {COLUMN_PX} px column "
                     "(narrow the figure to 7.8 in, split it, or enlarge the fonts):\n"
                     + "\n".join(bad))


def test_known_list_only_shrinks(funcs):
    "Every KNOWN entry still matches a cell that breaks its rule (fixed ones leave the list)."
    stale = []
    for ch, rule, line in KNOWN:
        cells = _cells(ch)
        hits = (machine_paths(cells) if rule == "path" else illegible(cells, funcs))
        if not any(line in src for src, _ in hits):
            stale.append(f"{ch} {rule} {line!r}")
    assert not stale, "KNOWN entries that no longer fail: " + ", ".join(stale)


def _png(width: int, dpi: float) -> str:
    "A PNG header with the given width and a pHYs chunk (enough for `_png_size`)."
    ppm = round(dpi / 0.0254)
    ihdr = struct.pack(">IIBBBBB", width, 100, 8, 2, 0, 0, 0)
    phys = struct.pack(">IIB", ppm, ppm, 1)
    raw = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0" * 4
           + struct.pack(">I", 9) + b"pHYs" + phys + b"\0" * 4)
    return base64.b64encode(raw).decode()


def test_the_rules_can_fail():
    "A planted warning with a path, a wide figure with small labels and one inside a helper fail."
    warn = {"output_type": "stream", "name": "stderr",
            "text": "/tmp/ipykernel_123/456.py:15: ClippingWarning: clipped\n"}
    cell = lambda src, outs: {"cell_type": "code", "source": src, "outputs": outs}
    assert len(machine_paths([cell("fit()", [warn])])) == 1
    assert machine_paths([cell("fit()", [dict(warn, text="ClippingWarning: clipped\n")])]) == []
    assert abs(_png_size(_png(1090, 100))[1] - 100) < 0.01
    fig = lambda w, dpi: [{"output_type": "display_data", "data": {"image/png": _png(w, dpi)}}]
    # 11 in at 100 dpi, 9 pt: 9 * 100/72 * 784/1100 = 8.9 px; at 7.8 in it is 12.5 px
    assert len(illegible([cell("ax.legend(fontsize=9)", fig(1100, 100))], {})) == 1
    assert illegible([cell("ax.legend(fontsize=9)", fig(780, 100))], {}) == []
    # a 7 pt legend inside a helper the cell calls is seen
    funcs = {"draw": "def draw(r):\n    ax.legend(fontsize=7)\n"}
    assert len(illegible([cell("draw(res)", fig(1200, 100))], funcs)) == 1
    assert illegible([cell("draw(res)", fig(700, 100))], funcs) == []


@pytest.mark.parametrize("chapter", NOTEBOOKS)
def test_code_lines_fit_the_column(chapter):
    "A code line of more than 100 characters is cut off in the book's code blocks (DESIGN.md)."
    long = [(i, len(ln), ln[:60]) for i, c in enumerate(_cells(chapter)) if c["cell_type"] == "code"
            for ln in "".join(c["source"]).splitlines() if len(ln) > 100]
    assert not long, f"{chapter}: code lines over 100 characters (cell, length, start): {long}"
