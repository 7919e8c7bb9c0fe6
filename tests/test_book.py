"""The rendered book, checked in headless Chromium: one page per chapter of _quarto.yml, mathematics typeset by the
locally served MathJax with no raw TeX left, every figure present, every internal link resolving."""
import json
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

bs4 = pytest.importorskip("bs4")
from dplit.book import build_book, chapter_pages, find_root, read_book  # noqa: E402

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    build_book(out=out)
    return out


def _chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("chromium is not installed (tests/run.sh installs Debian's chromium)")
    return exe


def _rendered_dom(page: Path, profile: Path) -> str:
    cmd = [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=30000", "--dump-dom", page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout


def _chapters():
    book = read_book()
    return [(c, book["root"] / c) for _, cs in book["parts"] for c in cs]


def _png_outputs(nb_path: Path) -> int:
    nb = json.loads(nb_path.read_text())
    return sum("image/png" in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))


def _has_math(nb_path: Path) -> bool:
    nb = json.loads(nb_path.read_text())
    # math outside code spans and fenced blocks
    strip = lambda t: re.sub(r"`[^`]*`", "", re.sub(r"```.*?```", "", t, flags=re.S))
    return any("$" in strip("".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_one_page_per_chapter(book):
    pages = chapter_pages(out=book)
    assert len(pages) == len(_chapters()) == len(set(pages))
    missing = [p for p in pages if not p.is_file()]
    assert not missing, missing
    index = (book / "index.html").read_text()
    for p in pages:  # every chapter is reachable from the front page's navigation
        assert p.relative_to(book).as_posix() in index, p


def test_math_figures_and_local_mathjax_in_chromium(book, tmp_path):
    pages = chapter_pages(out=book)
    with ThreadPoolExecutor(2) as ex:
        doms = list(ex.map(lambda ip: _rendered_dom(ip[1], tmp_path / f"prof{ip[0]}"), enumerate(pages)))
    problems = []
    for (chapter, nb_path), page, dom in zip(_chapters(), pages, doms):
        static = bs4.BeautifulSoup(page.read_text(), "html.parser")
        mj = [s.get("src") for s in static.find_all("script") if s.get("src") and "MathJax.js" in s.get("src")]
        if (mj or _has_math(nb_path)) and (not mj or urlparse(mj[0]).scheme or not (page.parent / mj[0].split("?")[0]).is_file()):
            problems.append(f"{chapter}: MathJax not served locally ({mj})")
        soup = bs4.BeautifulSoup(dom, "html.parser")
        if not soup.find("body"):
            problems.append(f"{chapter}: chromium returned no DOM"); continue
        typeset = soup.select(".MathJax_CHTML, .mjx-chtml, mjx-container")
        for t in soup(["script", "style", "code", "pre"]):  # TeX shown as code is not raw math
            t.decompose()
        text = soup.get_text(" ")
        if _has_math(nb_path) and not typeset:
            problems.append(f"{chapter}: no typeset math")
        for pat in (r"\$\$", r"\\\(", r"\\\[", r"\\begin\{", "Math Processing Error"):
            if re.search(pat, text):
                i = re.search(pat, text).start()
                problems.append(f"{chapter}: raw {pat!r} left near {text[max(0, i - 80):i + 80]!r}")
        n_png = _png_outputs(nb_path)
        imgs = [i.get("src", "") for i in soup.find_all("img")]
        ok_imgs = [s for s in imgs if not urlparse(s).scheme and (page.parent / unquote(s)).is_file()
                   and (page.parent / unquote(s)).stat().st_size > 0]
        if len(ok_imgs) < n_png:
            problems.append(f"{chapter}: {n_png} figures in the notebook, {len(ok_imgs)} present in the page")
    assert not problems, "\n".join(problems)


def test_internal_links_resolve(book):
    ids_cache = {}

    def ids(path: Path):
        if path not in ids_cache:
            soup = bs4.BeautifulSoup(path.read_text(), "html.parser")
            ids_cache[path] = {t.get("id") for t in soup.find_all(id=True)}
        return ids_cache[path]

    broken = []
    for page in sorted(book.rglob("*.html")):
        soup = bs4.BeautifulSoup(page.read_text(), "html.parser")
        for a in soup.find_all("a", href=True):
            u = urlparse(a["href"])
            if u.scheme or a["href"].startswith("//") or a["href"].startswith("mailto:"):
                continue
            target = page if not u.path else (page.parent / unquote(u.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(book)} -> {a['href']}")
            elif u.fragment and target.suffix == ".html" and unquote(u.fragment) not in ids(target):
                broken.append(f"{page.relative_to(book)} -> {a['href']} (no such anchor)")
    assert not broken, "\n".join(broken[:40])


def test_book_is_defined_by_quarto_yml_only():
    root = find_root()
    listed = {c for _, cs in read_book()["parts"] for c in cs}
    chapters_on_disk = {f"nbs/{p.name}" for p in (root / "nbs").glob("*.ipynb")}
    assert chapters_on_disk == listed, f"notebooks not in _quarto.yml: {chapters_on_disk - listed}; listed but missing: {listed - chapters_on_disk}"
