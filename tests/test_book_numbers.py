"""Numbers in the prose come from the outputs on the same page (issue 40).

Every number the Markdown of a chapter quotes *as a measurement* — with a unit ("391.8 s",
"18.6 ms", "5.8%", "1,480 s wall"), as a ratio ("×1.81", "7.4x"), right after a method's name
("mistakes 0.57/0.97", "Samp-Agg 0.11") or after a measure named bare ("R² 0.849", "test R^2 of
about 0.43", "accuracy 0.746", "coverage 0.738") — must appear in that chapter's saved outputs
(stream text, text/plain, HTML and Markdown outputs, MyST-NB `glue` values included), to the
precision the prose quotes it: the prose's "0.02" matches an output 0.020 or 0.0196, not 0.010.
The front page (whose text becomes the README) quotes the chapters, so its numbers are looked up
in every chapter's outputs.

Numbers that are legitimately not outputs — constants of the papers, parameters the prose states as
inputs, quantities derived in the text — are listed, with the reason, in `book_numbers_allow.txt`
beside this file (one ``chapter | quote | reason`` per line). An entry that no longer matches any
quote fails the test too, so the list cannot go stale silently.

Mathematics (`$...$`), inline code and code fences are not read: numbers there are formulas and
parameters, not measurements.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOW = Path(__file__).with_name("book_numbers_allow.txt")

# a number as prose writes it: 1,480 / 0.010 / 18.6 / 2.3·10^19 is not read (it is maths)
_NUM = r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w])"
_UNITS = {"ms": 1e-3, "µs": 1e-6, "us": 1e-6, "s": 1.0, "min": 60.0, "h": 3600.0,
          "GB": 1.0, "MB": 1.0, "KB": 1.0, "%": 0.01, "floors": 1.0}
_UNIT_RE = r"(ms|µs|us|s|min|h|GB|MB|KB|%|floors)"
METHODS = ("mistakes", "top-R", "MCMC", "Samp-Agg", "oracle", "DP-SIS", "two-stage",
           "K-Tukey", "L-Tukey", "K-BAS", "L-BAS", "BAS", "Tukey", "NonDP", "DPKendall",
           "SubLasso", "RadoBoost", "AdaBoost", "IHT")
_SEQ = _NUM[:-len(r"(?![\w])")] + r"(?:\s*[/–-]\s*" + _NUM[:-len(r"(?![\w])")] + r")*"
# a measure quoted bare (issue 40): its name, a few linking words, then the number(s)
_MEASURE = r"(?<![\w-])(R²|R\^2|R2|accuracy|accuracies|coverage|coverages)(?![\w^])"
_LINKS = (r"(?:'s)?(?:\s+(?:is|was|were|are|of|about|around|near|only|just|at|from|to|then|"
          r"still|stays|reaches|falls|drops|rises|here|median|mean|least|most)\b|\s*[(:=≈~]){0,3}")
_MORE_NUMS = r"(?:\s*(?:,|and|to|against|vs\.?|or)\s*[-−]?" + _SEQ + r")*"


def _strip(md: str) -> str:
    "Markdown without code fences, inline code, display and inline maths, links' targets and HTML."
    md = re.sub(r"^(```|~~~).*?^\1", " ", md, flags=re.S | re.M)
    md = re.sub(r"([Tt]op-)\$R\$", r"\1R", md)  # a method's name, not maths
    md = re.sub(r"\$R\^\{?2\}?\$", "R²", md)  # the name of a measure, not maths
    md = re.sub(r"`[^`]*`", " ", md)
    md = re.sub(r"\$\$.*?\$\$", " ", md, flags=re.S)
    md = re.sub(r"(?<!\\)\$[^$]*\$", " ", md)
    md = re.sub(r"\]\([^)]*\)", "]", md)
    md = re.sub(r"<[^>]+>", " ", md)
    return md.replace("**", "").replace("\u202f", " ").replace("\xa0", " ")


def _value(tok: str) -> float:
    return float(tok.replace(",", ""))


def _decimals(tok: str) -> int:
    return len(tok.split(".")[1]) if "." in tok else 0


def prose_claims(md: str) -> list[tuple[str, str, float, int, float]]:
    """The measured numbers a Markdown text quotes.

    Returns
    -------
    list of (quote, token, value, decimals, scale)
        `quote` is the text as written ("391.8 s", "×1.81", "mistakes 0.57"); `scale` converts the
        value to the unit an output would print (seconds for times, 1 otherwise).
    """
    text, out = _strip(md), []
    # a unit after one number or a range/list of them ("19–28 ms", "0.59 s", "5.8%")
    for m in re.finditer(_SEQ + r"(\s?)" + _UNIT_RE + r"(?![\w'])", text):
        unit = m.group(m.lastindex)
        if unit in ("s", "min", "h") and not m.group(m.lastindex - 1):
            continue  # "1980s", "2h": a unit of time is written after a space
        for t in re.findall(_NUM, m.group(0)[: m.start(m.lastindex) - m.start()]):
            out.append((m.group(0).strip(), t, _value(t), _decimals(t), _UNITS[unit]))
    # ratios, written without a space: ×1.81, 1.81×, 1.1–1.4×, 7.4x ("72 × 7129" is a shape)
    for m in re.finditer(r"(?<![\w.])×" + _NUM + r"|" + _SEQ + r"[×x](?![\w])", text):
        for t in re.findall(_NUM, m.group(0)):
            out.append((m.group(0).strip(), t, _value(t), _decimals(t), 1.0))
    # a method's name followed by its number(s): "mistakes 0.57/0.97/1.00", "Samp-Agg 0.11"
    names = "|".join(re.escape(n) for n in sorted(METHODS, key=len, reverse=True))
    for m in re.finditer(r"(?<![\w-])(?:" + names + r")(?:'s)?:?\s" + _SEQ, text, flags=re.I):
        for t in re.findall(_NUM, m.group(0).split(None, 1)[1] if " " in m.group(0) else ""):
            if "." in t:  # integers after a name are counts or sizes ("top-R 2 swaps")
                out.append((m.group(0).strip(), t, _value(t), _decimals(t), 1.0))
    # a bare measure: "R² 0.849", "test R^2 of about 0.43", "accuracy 0.746", "coverage 0.738 and
    # 0.877" (the number a reader takes for a result even without a unit or a method's name)
    for m in re.finditer(_MEASURE + _LINKS + r"\s*[-−]?" + _SEQ + _MORE_NUMS, text):
        for t in re.findall(_NUM, m.group(0)[len(m.group(1)):]):
            if "." in t:  # "R² > 0", "coverage 2 of 3": integers are levels and counts
                out.append((m.group(0).strip(), t, _value(t), _decimals(t), 1.0))
    # an estimate with its error, or a change, written in numbers: "0.1770 ± 0.0019", "+0.0017 ±
    # 0.0027", "0.588 → 0.601" (no unit or measure's name before them: chapter 19 once quoted a
    # paired difference that no output showed, and only this reads it)
    for m in re.finditer(r"[-+−]?" + _NUM + r"\s*[±→]\s*[-+−]?" + _NUM, text):
        for t in re.findall(_NUM, m.group(0)):
            if "." in t:  # "3 → 4 rounds": integers are counts and levels
                out.append((m.group(0).strip(), t, _value(t), _decimals(t), 1.0))
    return out


def _output_text(cell: dict) -> str:
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append("".join(o.get("text", "")))
            continue
        data = o.get("data", {})
        for k in ("text/plain", "text/markdown", "text/html", "text/latex"):
            if k in data:
                v = data[k]
                parts.append(re.sub(r"<[^>]+>", " ", "".join(v) if isinstance(v, list) else v))
        if "traceback" in o:
            parts.append("\n".join(o["traceback"]))
    return "\n".join(parts)


_OUT_NUM = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def output_numbers(cells: list) -> list[float]:
    "Every number the code cells' saved outputs print (glue values included: they are outputs)."
    vals = set()
    for c in cells:
        if c.get("cell_type") != "code":
            continue
        for t in _OUT_NUM.findall(_output_text(c)):
            try:
                vals.add(abs(float(t.replace(",", ""))))
            except ValueError:
                pass
    return sorted(vals)


def shown(value: float, decimals: int, scale: float, outputs) -> bool:
    """Does some output, rounded to the quote's decimals, give the quoted value? A time may be
    printed in seconds for a quote in ms or min (`scale`: seconds per unit of the quote), a share
    as a fraction for a quote in % (`scale` = 0.01: 5.8% is 0.058)."""
    half = 0.5 * 10.0 ** -decimals * (1 + 1e-9) + 1e-12
    convs = (1.0,) if scale == 1.0 else (1.0, 1.0 / scale)
    return any(abs(v * c - value) <= half for v in outputs for c in convs)


def chapters() -> list[str]:
    import yaml
    cfg = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))
    out = []

    def walk(x):
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for v in x.get("chapters", []):
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(cfg["book"]["chapters"])
    walk(cfg["book"].get("appendices", []))
    return [c for c in out if c.endswith(".ipynb") and (ROOT / c).is_file()]


def read_allow(path: Path = ALLOW) -> dict:
    "{(chapter file name, quote): reason} from the allow-list."
    allow = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        assert len(parts) == 3 and all(parts), f"{path.name}:{i}: want 'chapter | quote | reason'"
        allow[(parts[0], parts[1])] = parts[2]
    return allow


def unmatched(cells: list, pool=None) -> list[tuple[str, str]]:
    """(quote, token) of every measured number of the Markdown cells that `pool` (default: the
    cells' own outputs) does not show."""
    outs = output_numbers(cells) if pool is None else pool
    bad = []
    for c in cells:
        if c.get("cell_type") != "markdown":
            continue
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for quote, tok, val, dec, scale in prose_claims(src):
            if not shown(val, dec, scale, outs) and (quote, tok) not in bad:
                bad.append((quote, tok))
    return bad


_CACHE = {}


def _book():
    if not _CACHE:
        cells = {ch: json.loads((ROOT / ch).read_text(encoding="utf-8"))["cells"]
                 for ch in chapters()}
        pool = sorted({v for cs in cells.values() for v in output_numbers(cs)})
        _CACHE.update(cells=cells, pool=pool)
    return _CACHE


def _failures(ch: str, allow: dict) -> list[str]:
    b = _book()
    front = Path(ch).name == "index.ipynb"
    bad = unmatched(b["cells"][ch], b["pool"] if front else None)
    name = Path(ch).name
    return [f"{name}: '{q}' ({t} is in no output of the chapter)" for q, t in bad
            if (name, q) not in allow]


@pytest.mark.parametrize("chapter", chapters())
def test_prose_numbers_come_from_outputs(chapter):
    fails = _failures(chapter, read_allow())
    assert not fails, ("numbers in the prose that no output shows (fix the prose from the output, "
                       "glue the value, or allow-list a paper constant with its reason in "
                       f"{ALLOW.name}):\n" + "\n".join(fails))


def test_allow_list_entries_still_quoted():
    "Every allow-list entry names a quote that the chapter still makes (no stale entries)."
    b, stale = _book(), []
    for (name, quote), _ in read_allow().items():
        ch = next((c for c in b["cells"] if Path(c).name == name), None)
        if ch is None:
            stale.append(f"{name}: not a chapter of the book")
            continue
        quotes = {q for c in b["cells"][ch] if c.get("cell_type") == "markdown"
                  for q, *_ in prose_claims("".join(c["source"]))}
        if quote not in quotes:
            stale.append(f"{name}: '{quote}' is no longer quoted")
    assert not stale, "stale allow-list entries:\n" + "\n".join(stale)


def _nb(md: str, out: str) -> list:
    return [{"cell_type": "markdown", "metadata": {}, "source": md},
            {"cell_type": "code", "metadata": {}, "source": "x", "execution_count": 1,
             "outputs": [{"output_type": "stream", "name": "stdout", "text": out}]}]


def test_planted_mismatch_is_caught():
    "The issue's own mismatches, planted in a two-cell chapter, fail; the corrected prose passes."
    out = ("hinge sweep: 391.8 s\nfast scorer: 18.6 ms per support\n"
           "samp_agg 4000 0.000\nsamp_agg 8000 0.010\nd=10 m_94 = 740 m_95 = 408 ratio 1.813725\n"
           "p = 1000: 1480 s wall\nshare correct 0.058\n")
    assert unmatched(_nb("The cell printed 90 s.", out)) == [("90 s", "90")]
    # 19 ms is 18.6 ms to the quote's precision; 28 ms is not
    assert unmatched(_nb("mean 19–28 ms per support", out)) == [("19–28 ms", "28")]
    assert unmatched(_nb("Samp-Agg 0/0.02 at n = 4000/8000", out)) == [("Samp-Agg 0/0.02", "0.02")]
    assert unmatched(_nb("Lemma 9.5 needs 429 models (×1.72).", out)) == [("×1.72", "1.72")]
    assert unmatched(_nb("Top-$R$ 0.51 at $n=2000$", out)) == [("Top-R 0.51", "0.51")]
    # chapter 60's cost ratios are in floors (one pass of the non-private Gram): 1.81 is shown,
    # 9.99 not
    assert unmatched(_nb("AdaSSP costs 9.99 floors, the floor 1.81 floors", out)) == [
        ("9.99 floors", "9.99")]
    # the corrected sentences pass: rounding to the quoted precision, thousands, %, ms <-> s
    good = ("391.8 s; 18.6 ms per support; Samp-Agg 0.000/0.010; ×1.81 and 1.81×; "
            "1,480 s wall; 5.8% of its draws; 0.39 ms")
    assert unmatched(_nb(good, out + "0.00039\n")) == []
    # maths, inline code and fences are not read
    assert unmatched(_nb("$t = 90 s$ and `sleep(90 s)`\n```\n77 s\n```\n", out)) == []


def test_bare_measures_are_read():
    "R², accuracy and coverage quoted without a unit or a method's name are claims too."
    out = "test R^2 0.849\nmean coverage 0.7381\naccuracy 0.746 +- 0.004\n"
    assert unmatched(_nb("held-out $R^2$ of 0.85, accuracy 0.75 and coverage 0.738", out)) == []
    assert unmatched(_nb("a test $R^2$ of about 0.86", out)) == [("R² of about 0.86", "0.86")]
    assert unmatched(_nb("accuracy: 0.746 against 0.79", out)) == [
        ("accuracy: 0.746 against 0.79", "0.79")]
    assert unmatched(_nb("coverage is at least 0.74, R^2 = 0.5", out)) == [("R^2 = 0.5", "0.5")]
    # levels, counts and formulas are not results: "R² > 0", "coverage 90%" is a unit's rule
    assert unmatched(_nb("R² > 0 on 3 tables; coverage 2 of 3; $R^2 = 0.5$ in a proof", out)) == []


def test_estimates_with_errors_and_changes_are_read():
    "'a ± b' and 'a → b' are measurements even without a unit or a measure's name."
    out = "best − fifth rule: +0.0019 ± 0.0019 (1.0 s.e.)\ncalifornia 0.588 → 0.601\n"
    assert unmatched(_nb("together, +0.0019 ± 0.0019; 0.588 → 0.601", out)) == []
    # the quote of chapter 19 that no output showed (before commit b328e50)
    assert unmatched(_nb("in place of 0.3, +0.0017 ± 0.0027 at the time", out)) == [
        ("+0.0017 ± 0.0027", "0.0017"), ("+0.0017 ± 0.0027", "0.0027")]
    assert unmatched(_nb("california (0.588 → 0.610)", out)) == [("0.588 → 0.610", "0.610")]
    assert unmatched(_nb("$0.5 ± 0.1$ in maths, `1.5 → 2.5` in code, 3 → 4 rounds", out)) == []


@pytest.mark.parametrize("chapter, true, planted", [
    ("nbs/15_pipelines.ipynb", "$R^2$ of about 0.92", "$R^2$ of about 0.9173"),
    ("nbs/19_head_to_head.ipynb", "$R^2$ 0.002", "$R^2$ 0.00271"),
])
def test_planted_mismatch_in_a_chapter_is_caught(chapter, true, planted):
    "One bare number changed in a real chapter's prose fails; the chapter as written passes."
    cells = json.loads(json.dumps(_book()["cells"][chapter]))
    md = [c for c in cells if c["cell_type"] == "markdown" and true in "".join(c["source"])]
    assert len(md) == 1, f"{true!r} is no longer in {chapter}: choose another quote"
    before = unmatched(cells)
    md[0]["source"] = "".join(md[0]["source"]).replace(true, planted)
    new = [b for b in unmatched(cells) if b not in before]
    # one new number (two quotes may read it: "R² 0.00271" and "0.00271 ± 0.047")
    assert len({t for _, t in new}) == 1 and new[0][1] in planted, new


def test_front_page_numbers_are_looked_up_in_the_chapters():
    "The README's '(8 s)' for a benchmark whose output says 3.65 s fails; '(3.7 s)' passes."
    pool = output_numbers(_nb("", "total_p1000 3.650311983001302\n"))
    assert unmatched(_nb("top-R at p = 1000 (8 s)", ""), pool) == [("8 s", "8")]
    assert unmatched(_nb("top-R at p = 1000 (3.7 s)", ""), pool) == []


def test_chapter_without_numbers_passes():
    assert unmatched(_nb("# A chapter\n\nNo measured numbers here.", "")) == []
    assert unmatched([]) == []
