"""The rendered book as a reader sees it.

One `dplit book` build, then every page opened in ONE headless Chromium session (driven over the DevTools protocol
through a pipe, no extra package), after MathJax has finished. In the text a reader sees outside mathematics and code,
the test counts TeX control words (``\\varepsilon``, ``\\binom``, ...), ``$`` signs (a ``$`` left in prose is math that
was not recognised), and markdown pipe-table syntax (``|---|``, also in cell outputs); it measures that every display
equation is centred in its block, that every figure loaded, and that MathJax is served from the book itself.

The counts are per page, so a failure names the pages. Run ``python tests/test_book.py`` to print the table of counts
for the current checkout without pytest (``--shots DIR`` also saves a screenshot of every page).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytest.importorskip("sphinx")
from dplit.book import FOLD_LINES, build_book, chapter_pages, find_root, read_book  # noqa: E402

# one build and one Chromium for the whole module, also under pytest-xdist: tests/run.sh uses --dist loadfile,
# which keeps a file's tests on one worker. (--dist loadgroup with this mark no longer groups anything: pytest 9
# keeps a test's id in `_id`, and xdist 3.8 still appends the group to `_nodeid`, so the book was built and
# measured on both workers, 254 s in one CI run.) The fixtures are session-scoped as well.
pytestmark = pytest.mark.xdist_group("book")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--mute-audio", "--hide-scrollbars"]

# What a reader sees, measured in the page after MathJax. Runs in the browser; returns a JSON-able dict.
MEASURE_JS = r"""
(async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const t0 = Date.now();
  while (document.querySelector('script[src*="MathJax"], script[src*="mathjax"]') && !window.MathJax
         && Date.now() - t0 < 20000) await sleep(50);
  if (window.MathJax) {
    if (MathJax.Hub && MathJax.Hub.Register) {
      await new Promise(r => MathJax.Hub.Register.StartupHook("End", r));
      await new Promise(r => MathJax.Hub.Queue(r));
    } else {
      while (!(MathJax.startup && MathJax.startup.promise) && Date.now() - t0 < 20000) await sleep(50);
      if (MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
    }
  }
  await sleep(100);
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  const MATH = '.math, .MathJax, .MathJax_Display, .MathJax_CHTML, .MathJax_Preview, .MJX_Assistive_MathML, '
             + 'mjx-container, .MathJax_SVG, script';
  const CODE = 'code, pre, .highlight, .cell_input, kbd, samp, style';
  const visible = el => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden') return false;
    }
    return el.getClientRects().length > 0;
  };
  const textOf = (root, skip) => {
    const parts = [];
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const p = n.parentElement;
      if (!p || p.closest(skip) || !visible(p)) continue;
      parts.push(n.nodeValue);
    }
    return parts.join(' ');
  };
  const prose = textOf(article, MATH + ', ' + CODE);
  const outputs = [...article.querySelectorAll('.cell_output, .output')]
      .filter(visible).map(o => o.innerText).join('\n');
  const tex = prose.match(/\\[A-Za-z]+/g) || [];
  // a $ a reader should see (US$, $100, $DPLIT_DATA_DIR) is not math; any other $ is math MyST did not recognise
  const legit = /[A-Za-z]\$|\$(?=\d)|\$(?=[A-Z][A-Z0-9_]+\b)/g;
  const dollars = (prose.match(/\$/g) || []).length - (prose.match(legit) || []).length;
  const pipeRe = /\|(?:\s*:?[-\u2013\u2014]+:?\s*\|)+/g;  // a |---|---| row (|—|—| after smart dashes)
  const proseOnly = textOf(article, MATH + ', ' + CODE + ', .cell_output, .output');  // outputs counted once
  const pipes = (proseOnly.match(pipeRe) || []).length + (outputs.match(pipeRe) || []).length;
  const errors = article.querySelectorAll('.MathJax_Error, .mjx-merror, mjx-merror, merror').length;
  // display equations: the typeset box must sit in the middle of its block
  const displays = [...article.querySelectorAll('.MathJax_Display, .MJXc-display, mjx-container[display="true"]')]
      .filter(visible);
  const offCentre = [];
  for (const d of displays) {
    const box = d.querySelector('.mjx-math, mjx-math') || d.firstElementChild || d;
    const block = d.parentElement.closest('div.math, p, li, div') || d.parentElement;
    const b = box.getBoundingClientRect(), c = block.getBoundingClientRect();
    if (b.width >= c.width - 4) continue;  // fills its block: nothing to centre
    const left = b.left - c.left, right = c.right - b.right;
    if (Math.abs(left - right) > Math.max(12, 0.05 * c.width))
      offCentre.push({left: Math.round(left), right: Math.round(right), tex: (d.innerText || '').slice(0, 60)});
  }
  // characters a code cell shows per line without wrapping or scrolling (the house limit is 100)
  const fits = [...article.querySelectorAll('div.cell_input pre')].filter(visible).map(p => {
    const s = document.createElement('span');
    s.textContent = 'x'.repeat(100);
    p.appendChild(s);
    const cw = s.getBoundingClientRect().width / 100;
    s.remove();
    const cs = getComputedStyle(p);
    return Math.floor((p.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)) / cw);
  });
  const imgs = [...article.querySelectorAll('img')];
  const ctx = (s, i) => s.slice(Math.max(0, i - 60), i + 60).replace(/\s+/g, ' ');
  const texAt = prose.search(/\\[A-Za-z]+/), dolAt = prose.search(/(?<![A-Za-z])\$(?![\dA-Z])/);
  return {
    title: document.title,
    tex_words: tex.length, tex_sample: [...new Set(tex)].slice(0, 8),
    tex_context: texAt >= 0 ? ctx(prose, texAt) : '',
    dollars: dollars, dollar_context: dolAt >= 0 ? ctx(prose, dolAt) : '',
    pipe_tables: pipes, math_errors: errors,
    typeset: article.querySelectorAll('.MathJax_CHTML, .MathJax, mjx-container').length,
    displays: displays.length, off_centre: offCentre.length, off_centre_sample: offCentre.slice(0, 3),
    code_fit: fits.length ? Math.min(...fits) : 1000,
    images: imgs.length, images_broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).length,
    html_tables: article.querySelectorAll('table').length,
    mathjax: [...document.querySelectorAll('script[src]')].map(s => s.getAttribute('src'))
               .filter(s => /mathjax/i.test(s)),
  };
})()
"""


# Where the height of a page goes, per cell (run after MEASURE_JS, so MathJax has typeset). The classification of an
# input as library source (an exported cell) is done in Python against the chapter's notebook (`reading`).
READING_JS = r"""
(() => {
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  // content of a closed <details> keeps a layout box in Chromium: it counts as not shown
  const closed = el => !!(el && el.parentElement && el.parentElement.closest('details:not([open])'));
  const h = el => el && !closed(el) ? el.getBoundingClientRect().height : 0;
  const cells = [...article.querySelectorAll('div.cell')].map(c => {
    const inp = c.querySelector('.cell_input');
    const pre = inp && inp.querySelector('pre');
    const det = c.querySelector('details.above-input');
    const sum = det && det.querySelector('summary');
    const outs = [...c.querySelectorAll('.cell_output')];
    const imgs = outs.flatMap(o => [...o.querySelectorAll('img')]);
    const notes = [...c.querySelectorAll('.dplit-note')];
    const label = sum && sum.querySelector('.collapsed');
    return {
      text: pre ? pre.textContent.slice(0, 400) : '',
      lines: pre && !closed(pre) ? pre.textContent.replace(/\n+$/, '').split('\n').length : 0,
      cell_h: h(c), input_h: h(inp), fold_h: sum ? sum.getBoundingClientRect().height : 0,
      folded: !!det && !det.open,
      fold_label: label ? label.textContent.trim() : '',
      output_h: outs.reduce((s, o) => s + h(o), 0), figure_h: imgs.reduce((s, i) => s + h(i), 0),
      outputs_hidden: outs.filter(o => h(o) === 0).length, shown: !closed(inp),
      outputs: outs.length, note: notes.length > 0, note_h: notes.reduce((s, n) => s + h(n), 0),
      note_text: notes.map(n => n.textContent.trim()).join(' '),
    };
  });
  const loose = [...article.querySelectorAll('img')].filter(i => !i.closest('div.cell'));
  return {
    page_h: document.documentElement.scrollHeight, view_h: window.innerHeight,
    article_h: h(article), cells: cells,
    api_h: [...article.querySelectorAll('.api-entry')].reduce((s, e) => s + h(e), 0),
    md_figure_h: loose.reduce((s, i) => s + h(i), 0),
  };
})()
"""

# Every fold opens onto its code: opened one by one, the code inside has height and its text; then closed again.
FOLDS_JS = r"""
(() => {
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  const folds = [...article.querySelectorAll('div.cell details.above-input')];
  let ok = 0;
  for (const d of folds) {
    const was = d.open;
    d.open = true;
    const pre = d.querySelector('pre');
    const r = pre ? pre.getBoundingClientRect() : null;
    if (r && r.height > 0 && r.width > 0 && pre.textContent.trim() && !pre.closest('details:not([open])')) ok += 1;
    d.open = was;
  }
  return {fold_count: folds.length, unfold_ok: ok};
})()
"""


# Sideways overflow at the window's width, with every fold opened (folded code counts too): how far the page scrolls
# sideways, the elements that stick out of the text column without a box of their own that scrolls or clips them (the
# outermost only), and the code blocks whose lines wrap (more visual lines than text lines).
OVERFLOW_JS = r"""
(async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const t0 = Date.now();
  while (document.querySelector('script[src*="MathJax"], script[src*="mathjax"]') && !window.MathJax
         && Date.now() - t0 < 20000) await sleep(50);
  if (window.MathJax && MathJax.Hub && MathJax.Hub.Register) {
    await new Promise(r => MathJax.Hub.Register.StartupHook("End", r));
    await new Promise(r => MathJax.Hub.Queue(r));
  }
  await sleep(100);
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  const closed = [...article.querySelectorAll('details:not([open])')];
  closed.forEach(d => { d.open = true; });
  await sleep(50);
  const doc = document.documentElement;
  const page = Math.max(0, doc.scrollWidth - doc.clientWidth);
  const col = article.getBoundingClientRect();
  const clips = e => /^(auto|scroll|hidden|clip)$/.test(getComputedStyle(e).overflowX);
  const out = el => { const r = el.getBoundingClientRect();
                      return r.width > 0 && r.height > 0 && (r.right > col.right + 1 || r.left < col.left - 1); };
  const sticking = [];
  for (const el of article.querySelectorAll('*')) {
    if (!out(el)) continue;
    let boxed = false, top = true;
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      if (clips(a) && !out(a)) { boxed = true; break; }
      if (a === el.parentElement && out(a)) top = false;
    }
    if (!boxed && top) sticking.push(el);
  }
  const wrapped = [];
  for (const pre of article.querySelectorAll('pre')) {
    if (!pre.getClientRects().length || pre.closest('.cell_output')) continue;  // printed text may wrap
    const ws = getComputedStyle(pre).whiteSpace;
    if (ws === 'pre' || ws === 'nowrap') continue;
    const probe = document.createElement('span');
    probe.textContent = 'x';
    pre.appendChild(probe);
    const lh = probe.getBoundingClientRect().height;
    probe.remove();
    const cs = getComputedStyle(pre);
    const inner = pre.scrollHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    const lines = pre.textContent.replace(/\n+$/, '').split('\n').length;
    if (lh > 0 && inner > (lines + 0.5) * lh) wrapped.push(pre.textContent.slice(0, 60));
  }
  // outputs a reader has to scroll sideways inside their own box (issue 40: printed text wraps,
  // wide pandas tables show as text)
  const scrolling = [...article.querySelectorAll('.cell_output *')].filter(
    e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1 && clips(e)
         && !e.closest('.MathJax_Display, .MJXc-display, .math'));
  closed.forEach(d => { d.open = false; });
  const desc = e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string'
                    ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' ' + (e.textContent || '').trim().slice(0, 40);
  return {page_overflow: page, sticking_out: sticking.length, sticking_sample: sticking.slice(0, 4).map(desc),
          wrapped_code: wrapped.length, wrapped_sample: wrapped.slice(0, 3),
          scrolling_outputs: scrolling.length, scrolling_sample: scrolling.slice(0, 3).map(desc)};
})()
"""

# Links (issue 22): API entries without their anchor (an element whose id is the entry's qualified name), and code
# names in the prose that name a public object of the package but are not links. PUBLIC is filled in by the test
# from the package's `__all__` lists (see `public_names`).
LINKS_JS = r"""
(() => {
  const PUBLIC = new Set(__PUBLIC__);
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  const entries = [...article.querySelectorAll('.api-entry')];
  const unanchored = entries.map(e => {
    const t = e.querySelector('.admonition-title code');
    return t ? t.textContent.trim() : '?';
  }).filter(q => !document.getElementById(q));
  const skip = 'a, pre, .cell, .api-entry, h1, h2, h3, h4, h5, h6, .admonition-title, .MathJax, script';
  const unlinked = [...article.querySelectorAll('code')].filter(c => !c.closest(skip))
      .map(c => c.textContent.trim().replace(/\(\)$/, '')).filter(t => PUBLIC.has(t));
  return {api_entries: entries.length, unanchored: unanchored.length, unanchored_sample: unanchored.slice(0, 4),
          unlinked: unlinked.length, unlinked_sample: [...new Set(unlinked)].slice(0, 8),
          linked: article.querySelectorAll('a.reference.internal code.xref').length};
})()
"""


# Chromium gets its pipe on fds 3 and 4 (dup2 in the child): two browsers started at once from two threads could
# close or reuse each other's descriptors between os.pipe() and the fork ("OSError: [Errno 9] Bad file descriptor"
# in Popen, seen in measure_book's second thread). One launch at a time.
_LAUNCH = threading.Lock()


class Chromium:
    """A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``)."""

    def __init__(self, width=1280, height=900):
        self.width = width
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if exe is None:
            raise FileNotFoundError("chromium is not installed (tests/run.sh installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="dplit-chromium-")
        with _LAUNCH:
            to_child_r, self._w = os.pipe()
            self._r, from_child_w = os.pipe()

            def fds():
                os.dup2(to_child_r, 3)
                os.dup2(from_child_w, 4)

            self.proc = subprocess.Popen([exe, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
                                          "--remote-debugging-pipe", "about:blank"], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=fds,
                                         pass_fds=(3, 4))
            os.close(to_child_r)
            os.close(from_child_w)
        self._buf, self._id, self._events = b"", 0, []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def resize(self, width, height=900):
        """Lay the open page out again at another window width (no wait: the next evaluation lays the page out, and
        OVERFLOW_JS lets resize handlers run before it measures)."""
        self.width = width
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def _read(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self._buf:
            if time.time() > end:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=False, timeout=120, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read(timeout)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self._events.append(m)

    def open(self, url, timeout=60):
        self._events.clear()
        self.call("Page.navigate", session=True, url=url)
        end = time.time() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            if time.time() > end:
                raise TimeoutError(f"{url} did not load")
            self._events.append(self._read(timeout))

    def evaluate(self, expression, timeout=90):
        r = self.call("Runtime.evaluate", session=True, timeout=timeout, expression=expression, awaitPromise=True,
                      returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path, full_page=False):
        params = {"format": "png"}
        if full_page:
            h = self.evaluate("document.documentElement.scrollHeight")
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": min(int(h), 8000), "scale": 1}
            params["captureBeyondViewport"] = True
        Path(path).write_bytes(base64.b64decode(self.call("Page.captureScreenshot", session=True, **params)["data"]))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)


def book_pages(out: Path) -> list[Path]:
    "Every HTML page a reader reaches: the chapters of _quarto.yml, in order (the front page first)."
    return chapter_pages(out=out)


NARROW = 800  # the second window width the overflow is measured at (issue 22: 800 and 1280 px)


def public_names(root=None) -> list:
    """Every way the prose may name a public object: `name`, `module.name` and `dplit.module.name` for each name in
    the `__all__` of a module of the package (read from `dplit/*.py` with ast), `dplit.name` for the front door's."""
    import ast
    root = Path(root) if root else find_root()
    names = set()
    for f in sorted((root / "dplit").glob("*.py")):
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                for n in ast.literal_eval(node.value):
                    names.add(n)
                    names.update({f"dplit.{n}"} if f.stem == "__init__" else {f"{f.stem}.{n}", f"dplit.{f.stem}.{n}"})
    return sorted(names)


BROWSERS = 2  # Chromium processes that measure the pages side by side (DPLIT_BOOK_BROWSERS overrides)


def _measure_page(browser, page: Path, nb_path: Path, out: Path, links_js: str, shots=None) -> dict:
    "Everything the tests read from one page, with the window at 1280 px, then at NARROW px."
    browser.open(page.as_uri())
    m = browser.evaluate(MEASURE_JS)
    m["reading"] = reading(browser.evaluate(READING_JS), nb_path)
    m["reading"].update(browser.evaluate(FOLDS_JS))
    m["links"] = browser.evaluate(links_js)
    m["overflow"] = {1280: browser.evaluate(OVERFLOW_JS)}
    name = page.relative_to(out).as_posix().replace("/", "_")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        browser.screenshot(Path(shots) / (name + ".png"))
    browser.resize(NARROW)
    m["overflow"][NARROW] = browser.evaluate(OVERFLOW_JS)
    if shots:
        browser.screenshot(Path(shots) / (name + f".{NARROW}.png"))
    # back to 1280 px on an empty page: resizing the measured page would lay it out once more for nothing
    # (18 of the measurement's 200 CPU-s)
    browser.open("about:blank")
    browser.resize(1280)
    m["static_mathjax_local"] = all(not urlparse(s).scheme and (page.parent / s.split("?")[0]).is_file()
                                    for s in m["mathjax"]) and bool(m["mathjax"])
    return m


def measure_book(out: Path, shots=None, browsers=None) -> dict:
    """Open every page of the built book in Chromium; returns {page (relative): measurements}, in book order. The
    overflow is measured at 1280 px, then once more after the window is narrowed to NARROW px (mathematics keeps the
    line breaks MathJax chose at 1280 px, which can only make it wider than a page loaded at NARROW px).

    `browsers` Chromium processes (default BROWSERS) take the pages from one queue, largest HTML file first; a page
    is measured in one browser from start to end, so the measurements do not depend on how the pages are shared."""
    import queue
    out = Path(out)
    links_js = LINKS_JS.replace("__PUBLIC__", json.dumps(public_names()))
    pages = list(zip(book_pages(out), (nb for _, nb in _chapters())))
    n = browsers or int(os.environ.get("DPLIT_BOOK_BROWSERS", BROWSERS))
    todo = queue.Queue()
    for i in sorted(range(len(pages)), key=lambda i: -pages[i][0].stat().st_size):
        todo.put(i)
    found, errors = [None] * len(pages), []

    def work():
        try:
            browser = Chromium()
        except Exception as e:  # noqa: BLE001 (re-raised below, in the calling thread)
            errors.append(e)
            return
        try:
            while not errors:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                found[i] = _measure_page(browser, pages[i][0], pages[i][1], out, links_js, shots)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        finally:
            browser.close()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(max(1, min(n, len(pages))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return {page.relative_to(out).as_posix(): m for (page, _), m in zip(pages, found)}


def links_report(measures: dict) -> str:
    "Per page: API entries, unanchored ones, unlinked public names in the prose, and the overflow at both widths."
    w = max(len(p) for p in measures)
    cols = ("entries", "unanchored", "unlinked", "linked", "page@1280", "stick@1280", "wrap@1280",
            f"page@{NARROW}", f"stick@{NARROW}", f"wrap@{NARROW}")
    lines = [f"{'page':{w}s} " + " ".join(f"{c:>11s}" for c in cols)]
    tot = [0] * len(cols)
    for p, m in measures.items():
        lk, o = m["links"], m["overflow"]
        row = [lk["api_entries"], lk["unanchored"], lk["unlinked"], lk["linked"]]
        for width in (1280, NARROW):
            row += [o[width]["page_overflow"], o[width]["sticking_out"], o[width]["wrapped_code"]]
        tot = [a + b for a, b in zip(tot, row)]
        lines.append(f"{p:{w}s} " + " ".join(f"{v:11d}" for v in row))
    lines.append(f"{'total':{w}s} " + " ".join(f"{v:11d}" for v in tot))
    return "\n".join(lines)


COLUMNS = ("tex_words", "dollars", "pipe_tables", "off_centre", "math_errors", "images_broken")


def report(measures: dict) -> str:
    "A table of the counts per page and a closing line of totals."
    w = max(len(p) for p in measures)
    lines = [f"{'page':{w}s} " + " ".join(f"{c:>13s}" for c in COLUMNS)]
    for p, m in measures.items():
        lines.append(f"{p:{w}s} " + " ".join(f"{m[c]:13d}" for c in COLUMNS))
    tot = {c: sum(m[c] for m in measures.values()) for c in COLUMNS}
    pages = {c: sum(m[c] > 0 for m in measures.values()) for c in COLUMNS}
    lines.append(f"{'total':{w}s} " + " ".join(f"{tot[c]:13d}" for c in COLUMNS))
    lines.append(f"{'pages hit':{w}s} " + " ".join(f"{pages[c]:13d}" for c in COLUMNS))
    return "\n".join(lines)


# ---- where the height goes (issue 22): library source, API entries, prose, figures, outputs ----

CATEGORIES = ("library_code", "other_code", "folds", "api", "prose", "outputs", "notes", "figures", "cell_gaps")
_EXPORTED = re.compile(r"^\s*#\|\s*export[si]?\b", re.M)


def _code_key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:200]


def library_sources(nb_path: Path) -> set:
    "Keys of the chapter's library source: the cells `#| export`, `#| exports` or `#| exporti` put in the package."
    if nb_path.suffix != ".ipynb":
        return set()
    keys = set()
    for c in json.loads(nb_path.read_text())["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "code" and _EXPORTED.search(src):
            keys.add(_code_key("\n".join(l for l in src.splitlines() if not re.match(r"\s*#\|", l))))
    return keys


def reading(raw: dict, nb_path: Path) -> dict:
    """Heights (px) per category of one page, code lines shown, and the code cells that show nothing.

    A code cell's visible input is library source when its text is an exported cell of the chapter, else other code;
    the one-line summary of a folded input is a fold; an output's images are figures, its `.dplit-note` a note, the
    rest output; the rest of a code cell's box (padding between input and output) is a cell gap; `.api-entry`
    blocks are API entries; what remains of the article's height is prose (headings, paragraphs, mathematics,
    Markdown tables, and the margins between blocks: attributing the margins around code cells and API entries to
    them instead, as an upper bound on what the prose could lose, gave 39% prose + figures at 562 screens, against
    45% with this attribution)."""
    lib = library_sources(nb_path)
    r = dict.fromkeys(CATEGORIES, 0.0)
    r.update(lines_library=0, lines_other=0, folded=0, empty=[], noted=0, cells=0, open_long=[], outputs_hidden=0)
    for c in raw["cells"]:
        is_lib = bool(c["text"]) and _code_key(c["text"]) in lib
        r["library_code" if is_lib else "other_code"] += c["input_h"]
        if c["input_h"] > 0:
            r["lines_library" if is_lib else "lines_other"] += c["lines"]
        r["folds"] += c["fold_h"]
        r["folded"] += c["folded"]
        r["figures"] += c["figure_h"]
        r["notes"] += c["note_h"]
        r["outputs"] += max(0.0, c["output_h"] - c["figure_h"] - c["note_h"])
        r["cells"] += 1
        # the padding inside a code cell's box (between input and output) belongs to the cell, not to the prose
        r["cell_gaps"] += max(0.0, c["cell_h"] - c["input_h"] - c["fold_h"] - c["output_h"])
        r["noted"] += c["note"]
        if not is_lib and not c["outputs"]:  # an input-less (echo: false) cell without output shows nothing at all
            r["empty"].append(c["text"].strip().split("\n")[0][:80] if c["text"] else "(input not shown)")
        if is_lib and c["input_h"] > 0 and c["lines"] > FOLD_LINES:
            r["open_long"].append(f"{c['lines']} lines: {c['text'].strip().splitlines()[0][:60]}")
        r["outputs_hidden"] += c["outputs_hidden"]
    r["api"] = raw["api_h"]
    r["figures"] += raw["md_figure_h"]
    shown = sum(r[k] for k in CATEGORIES if k != "prose")
    r["prose"] = max(0.0, raw["article_h"] - shown)
    r["article_h"], r["page_h"], r["screens"] = raw["article_h"], raw["page_h"], raw["page_h"] / raw["view_h"]
    return r


def reading_report(measures: dict) -> str:
    "Screens per page and the share of the article's height per category; totals weighted by height."
    cols = ("screens",) + CATEGORIES + ("lines_library", "lines_other", "folded", "noted", "empty")
    w = max(len(p) for p in measures)
    lines = [f"{'page':{w}s} " + " ".join(f"{c[:12]:>12s}" for c in cols)]
    tot = dict.fromkeys(cols, 0.0)
    for p, m in measures.items():
        r = m["reading"]
        row = {"screens": r["screens"], **{k: 100 * r[k] / max(r["article_h"], 1) for k in CATEGORIES},
               **{k: r[k] for k in ("lines_library", "lines_other", "folded", "noted")}, "empty": len(r["empty"])}
        for k in cols:
            tot[k] += r[k] if k in CATEGORIES else row[k]
        lines.append(f"{p:{w}s} " + " ".join(f"{row[k]:12.1f}" for k in cols))
    height = sum(m["reading"]["article_h"] for m in measures.values())
    for k in CATEGORIES:
        tot[k] = 100 * tot[k] / max(height, 1)
    lines.append(f"{'total (%)':{w}s} " + " ".join(f"{tot[k]:12.1f}" for k in cols))
    lines.append(f"screens at {1280} px: {tot['screens']:.0f}; code (library source shown) {tot['library_code']:.0f}%, "
                 f"all code {tot['library_code'] + tot['other_code']:.0f}%, API entries {tot['api']:.0f}%, "
                 f"prose + figures {tot['prose'] + tot['figures']:.0f}%, outputs {tot['outputs']:.0f}%, "
                 f"folds {tot['folds']:.0f}%; code cells without output or note: {int(tot['empty'])}; "
                 f"bridge paragraphs: {len(bridge_paragraphs())}")
    return "\n".join(lines)


def bridge_paragraphs(root=None) -> list:
    """Prose paragraphs that repeat the first docstring line of the function or class defined in the next cell.

    The same detection as the project's before-stop hook: [(notebook, paragraph start), ...]."""
    root = Path(root) if root else find_root()
    norm = lambda t: re.sub(r"[`*_\\s]+", " ", t).strip().lower()  # noqa: E731 (as in the hook, "\\s" included)
    found = []
    for f in sorted((root / "nbs").glob("*.ipynb")):
        cells = json.loads(f.read_text()).get("cells", [])
        for c, nxt_cell in zip(cells, cells[1:]):
            if c.get("cell_type") != "markdown" or nxt_cell.get("cell_type") != "code":
                continue
            src, nxt = "".join(c.get("source", [])), "".join(nxt_cell.get("source", []))
            m = re.search(r'(?:def|class) \w+(?:\(.*?\))?[^:\n]*:\s*\n\s*r?\"\"\"\s*([^\n]{20,})', nxt, re.S)
            if m and norm(m.group(1))[:30] in norm(src):
                found.append((f.name, src.strip()[:80]))
    return found


def _chapters():
    book = read_book()
    return [(c, book["root"] / c) for _, cs in book["parts"] for c in cs]


def _png_outputs(nb_path: Path) -> int:
    if nb_path.suffix != ".ipynb":
        return 0
    nb = json.loads(nb_path.read_text())
    return sum("image/png" in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code"
               for o in c.get("outputs", []))


def _has_math(nb_path: Path) -> bool:
    text = nb_path.read_text()
    if nb_path.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    strip = lambda t: re.sub(r"`[^`]*`", "", re.sub(r"```.*?```", "", t, flags=re.S))
    return "$" in strip(text)


@pytest.fixture(scope="session")
def book(tmp_path_factory):
    "The book, built once; DPLIT_BOOK_OUT=DIR measures a book already built there from this checkout instead."
    if os.environ.get("DPLIT_BOOK_OUT"):
        return Path(os.environ["DPLIT_BOOK_OUT"]).resolve()
    out = tmp_path_factory.mktemp("book")
    build_book(out=out)
    return out


@pytest.fixture(scope="session")
def seen(book):
    measures = measure_book(book, shots=os.environ.get("DPLIT_BOOK_SHOTS"))
    print("\n" + report(measures))
    print(reading_report(measures))
    print(links_report(measures))
    return measures


def _failing(seen, key, detail=None):
    bad = {p: m for p, m in seen.items() if m[key] > 0}
    return "\n".join(f"{p}: {m[key]} {key}" + (f" e.g. {m[detail]!r}" if detail else "") for p, m in bad.items())


def test_one_page_per_chapter(book):
    pages = book_pages(book)
    assert len(pages) == len(_chapters()) == len(set(pages))
    missing = [p for p in pages if not p.is_file()]
    assert not missing, missing
    assert pages[0] == book / "index.html", "the front page is the book's first page"
    index = (book / "index.html").read_text()
    for p in pages[1:]:  # every chapter is reachable from the front page's navigation
        assert p.relative_to(book).as_posix() in index, p


def test_no_raw_tex_in_prose(seen):
    assert not _failing(seen, "tex_words"), "TeX control words in visible text:\n" + _failing(seen, "tex_words", "tex_context")


def test_no_stray_dollar_in_prose(seen):
    assert not _failing(seen, "dollars"), "unpaired $ in visible text:\n" + _failing(seen, "dollars", "dollar_context")


def test_no_pipe_table_text(seen):
    assert not _failing(seen, "pipe_tables"), "markdown pipe-table syntax shown as text:\n" + _failing(seen, "pipe_tables")


def test_display_math_centred(seen):
    assert not _failing(seen, "off_centre"), "display equations not centred:\n" + _failing(seen, "off_centre", "off_centre_sample")
    assert sum(m["displays"] for m in seen.values()) > 0, "no display equation found anywhere: the measure is broken"


def test_math_typeset_locally_and_figures_load(seen):
    problems = []
    for (chapter, nb_path), (page, m) in zip(_chapters(), seen.items()):
        if _has_math(nb_path) and not m["typeset"]:
            problems.append(f"{page}: no typeset math")
        if (m["mathjax"] or _has_math(nb_path)) and not m["static_mathjax_local"]:
            problems.append(f"{page}: MathJax not served from the book ({m['mathjax']})")
        if m["math_errors"]:
            problems.append(f"{page}: {m['math_errors']} MathJax errors")
        n_png = _png_outputs(nb_path)
        if m["images_broken"] or m["images"] - m["images_broken"] < n_png:
            problems.append(f"{page}: {n_png} figures in the notebook, {m['images'] - m['images_broken']} shown")
    assert not problems, "\n".join(problems)


def test_code_column_fits_100_characters(seen):
    "At 1280 px, a code line of 100 characters (the house limit) is shown whole, not cut off or scrolled."
    narrow = {p: m["code_fit"] for p, m in seen.items() if m["code_fit"] < 100}
    assert not narrow, f"code cells show fewer than 100 characters per line: {narrow}"


def test_records_render_as_html_tables(seen):
    "A chapter that shows verification records shows them as tables (the records have an HTML repr)."
    assert seen["nbs/02_mechanisms.html"]["html_tables"] > 0


_ID = re.compile(r"""\bid=["']([^"']+)["']""")
_HREF = re.compile(r"""<a\s[^>]*?href=["']([^"']+)["']""")


def test_internal_links_resolve(book):
    "Every link between pages of the book, anchors included, reaches something (Sphinx's HTML, read with regexes)."
    from html import unescape
    ids_cache = {}

    def ids(path: Path):
        if path not in ids_cache:
            ids_cache[path] = set(map(unescape, _ID.findall(path.read_text())))
        return ids_cache[path]

    broken = []
    for page in sorted(book.rglob("*.html")):
        if "_static" in page.parts:
            continue
        for href in map(unescape, _HREF.findall(page.read_text())):
            u = urlparse(href)
            if u.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            target = page if not u.path else (page.parent / unquote(u.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(book)} -> {href}")
            elif u.fragment and target.suffix == ".html" and unquote(u.fragment) not in ids(target):
                broken.append(f"{page.relative_to(book)} -> {href} (no such anchor)")
    assert not broken, "\n".join(broken[:40])


def test_book_is_defined_by_quarto_yml_only():
    root = find_root()
    listed = {c for _, cs in read_book()["parts"] for c in cs}
    chapters_on_disk = {f"nbs/{p.name}" for p in (root / "nbs").glob("*.ipynb")}
    assert chapters_on_disk <= listed, f"notebooks not in _quarto.yml: {chapters_on_disk - listed}"


def test_renderer_writes_only_into_its_output_folder(book):
    root = find_root()
    assert not (root / "jupyter_execute").exists() or not any((root / "jupyter_execute").iterdir()) \
        or "jupyter_execute" not in subprocess.run(["git", "ls-files", "jupyter_execute"], cwd=root,
                                                   capture_output=True, text=True).stdout
    assert not (book.parent / "jupyter_execute").exists(), "the renderer wrote jupyter_execute/ beside its output"


# ---- issue 22: the book reads like a book ----
# Budgets. Issue 22's goal is <= 550 screens at 1280 px with prose + figures >= 40% of the height, 0 bridge
# paragraphs and a build with warnings as errors. Before the renderer folded library source: 1058 screens, prose +
# figures 26%. SCREENS_BUDGET and BRIDGES_BUDGET are ratchets, not derived tolerances: Chromium's layout of a given
# build is deterministic (two builds of one checkout measure the same), so a budget is the measured value plus
# a policy margin; lower it as the chapters improve.
SCREENS_BUDGET = 550  # issue 22's target was 550. 1,050 screens before the renderer folded source; 608 with the new
# chapters; 494 once API entries were made compact, proof code left the API and the guide and analysis chapters came;
# 548 after issue 40's pass; 627 once the four chapters of issues 37-39 (18, 19, 60, 70: about 79 screens) came;
# 557.3 after issue 40's second pass (driver and check code of 5+ lines folded: -51; a run of folded cells 0.3em
# apart, records and code blocks with less padding: -17; the three-line record calls folded: -4; four summaries: +2);
# 587.6 once figures were redrawn at the column's width (wide ones split in two rows or two figures: 06, 19, 40, 41)
# and chapter 70 gained its fallback's coverage tables (+10): above issue 40's 550, said in its note
# 574.8 after issue 40's third pass (587.5 measured before it): repeated warnings and search progress lines cut from
# outputs (08 -2.7, 53 -1.8), check cells folded (09 -1.2), 51's 24-line dict on one line, 02a's ledger one row per
# kind of charge, 70 bridge paragraphs that restated a docstring or named the next fold deleted, prose that retyped
# 53's tables cut; still above 550 (section headings, 34 px with 44 px above, are 5-6% of a chapter; left as they are)
# 571.8 after issue 40's fourth pass (572.2 measured before it, main at a5c1580): prose that retyped the numbers of
# the output below it cut (51's benchmark, 50's speed note, 40's slow note, 02's race), 40's PD loop on one line, 13's
# PTR pair table 8 rows of 13; the reading of outputs and prose outside 12/14/15/32/53/60 is about spent at this grain
# 575 on main once every branch of that session was merged (the figures of 14, 15, 32, 53 and 54 redrawn at the
# column's width with labels >= 9 px, several now on two rows; 70's coverage table split in two): budget 577
# 549.2 after issue 40's fifth pass (574.7 before it): output text at the code's 12 px and pandas table rows at
# the records' line height (-14.9: 15's spread tables no longer wrap every row), pandas' wrapped column blocks put back
# side by side when they fit (-2.9), a record's verdict and seconds on one row, records at line-height 1.3, 13's
# closing note (a restatement) and prose of 15 and 53 that retyped outputs cut (-5.9 together), 70's 32-line grid
# check folded, more retyped prose cut (15, 53, 70), five figures shorter at the same width (13, 32, 40, 53)
# (-1.8 with the tables' padding left as the theme's): budget 551
# 553.8 on main once that session's branches were merged (09's gridless quantile and Dask sections, 19's tuning
# additions, 50's Dask section, 60's profile, 08's late-step check: about +9; prose cuts in 19, 13-15, 21, 32, 40,
# 51, 53, 54, 70: about -6): budget 556, above issue 40's 550, said in its note
# 541.9 after issue 40's sixth pass (553.8 before it, main at 852eda9): a fold's one-line bar at line-height 1.3
# (25 -> 20 px, 1,240 folds: about -7) and 32 px above an h2, 28 above an h3 (44 before; 345 headings: about -5),
# no content changed: budget 550, issue 40's target
BRIDGES_BUDGET = 0  # 89 before; 86 docstring-copying paragraphs deleted, the last 5 rewritten
PROSE_SHARE_FLOOR = 0.40  # issue 22's floor; measured 57% (see `reading` for what counts as prose)
WARNINGS_BUDGET = 0  # the build had 0 warnings once the bibliography's anchors became targets: warnings are errors


def _total(seen, key):
    return sum(m["reading"][key] for m in seen.values())


def test_every_code_cell_shows_output_or_says_why(seen):
    "A code cell of the book (library source aside) shows an output, or a note where its output would be."
    empty = {p: m["reading"]["empty"] for p, m in seen.items() if m["reading"]["empty"]}
    assert not empty, "code cells with neither output nor a note:\n" + "\n".join(
        f"{p}: {len(e)}: {e[:3]}" for p, e in empty.items())


def test_outputs_always_show(seen):
    hidden = {p: m["reading"]["outputs_hidden"] for p, m in seen.items() if m["reading"]["outputs_hidden"]}
    assert not hidden, f"outputs folded or hidden: {hidden}"


def test_long_library_source_is_folded_and_unfolds(seen):
    "An exported cell longer than FOLD_LINES lines is folded under its summary, and every fold opens onto code."
    open_long = {p: m["reading"]["open_long"] for p, m in seen.items() if m["reading"]["open_long"]}
    assert not open_long, f"long library source shown unfolded: {open_long}"
    stuck = {p: (m["reading"]["fold_count"], m["reading"]["unfold_ok"]) for p, m in seen.items()
             if m["reading"]["fold_count"] != m["reading"]["unfold_ok"]}
    assert not stuck, f"folds that do not open onto code (folds, opened): {stuck}"
    assert _total(seen, "fold_count") > 0, "no fold anywhere: the measure is broken"


def test_bridge_paragraphs_counted():
    "Prose that repeats the next cell's docstring (the before-stop hook's detection): counted, and not growing."
    found = bridge_paragraphs()
    print(f"\n{len(found)} bridge paragraphs repeat the docstring below them")
    assert len(found) <= BRIDGES_BUDGET, "\n".join(f"{f}: {s}" for f, s in found)


def test_sphinx_warnings_counted(book):
    "The build keeps Sphinx's warnings; their number may not grow (warnings as errors once it reaches 0)."
    text = (book / ".sphinx-warnings.txt").read_text()
    warnings = [l for l in text.splitlines() if re.search(r"\b(WARNING|ERROR|CRITICAL)\b", l)]
    print(f"\n{len(warnings)} Sphinx warnings")
    assert len(warnings) <= WARNINGS_BUDGET, "\n".join(warnings[:40])


def test_screens_and_prose_share(seen):
    "The whole book's height at 1280 px, and the share of it that is prose and figures (see the budgets above)."
    screens = _total(seen, "screens")
    height = _total(seen, "article_h")
    share = (_total(seen, "prose") + _total(seen, "figures")) / height
    print(f"\n{screens:.0f} screens, prose + figures {100 * share:.0f}%")
    assert screens <= SCREENS_BUDGET, f"{screens:.0f} screens at 1280 px (budget {SCREENS_BUDGET})"
    assert share >= PROSE_SHARE_FLOOR, f"prose + figures {100 * share:.0f}% of the height (floor 40%)"



# ---- issue 22: everything linked, nothing spilling sideways ----
# Measured on this renderer (issue 22's linking pass): 640 API entries, 0 unanchored; 0 unlinked public names in the
# prose (352 before the link pass), 361 linked; sideways overflow 0 at 1280 and 800 px (it was 0 before too: the
# stylesheet already boxed wide tables and code). With compact API entries and every `#| exporti` cell folded, the
# book measured 518 screens at 1280 px (608 before), prose + figures 53% (45% before); SCREENS_BUDGET is left as it is.
# UNLINKED_BUDGET: code names in the prose that name a public object but are not links (see `public_names`, LINKS_JS).
UNLINKED_BUDGET = 0


def test_no_sideways_overflow(seen):
    """At 1280 and 800 px (every fold opened): the page never scrolls sideways, nothing sticks out of the text column
    without a box of its own that scrolls it, and no code block wraps its lines."""
    bad = []
    for p, m in seen.items():
        for width, o in m["overflow"].items():
            if o["page_overflow"] or o["sticking_out"] or o["wrapped_code"]:
                bad.append(f"{p} @{width}px: page {o['page_overflow']} px, {o['sticking_out']} sticking out "
                           f"{o['sticking_sample']}, {o['wrapped_code']} wrapped code {o['wrapped_sample']}")
    assert not bad, "\n".join(bad)


def test_outputs_fit_the_column(seen):
    "At 1280 px no output of any page needs a sideways scroll inside its own box (issue 40)."
    bad = [f"{p}: {m['overflow'][1280]['scrolling_outputs']} {m['overflow'][1280]['scrolling_sample']}"
           for p, m in seen.items() if m["overflow"][1280].get("scrolling_outputs")]
    assert not bad, "outputs wider than the column:\n" + "\n".join(bad)


def test_api_entries_anchored(seen):
    "Every API entry has its anchor: an element whose id is the entry's qualified name."
    assert _total_links(seen, "api_entries") > 0, "no API entry found: the measure is broken"
    bad = {p: m["links"]["unanchored_sample"] for p, m in seen.items() if m["links"]["unanchored"]}
    assert not bad, f"API entries without their anchor: {bad}"


def test_public_names_in_prose_are_links(seen):
    "A code name in the prose that names a public object (outside code cells, API entries, headings) is a link."
    n = _total_links(seen, "unlinked")
    print(f"\n{n} unlinked public names in the prose, {_total_links(seen, 'linked')} linked")
    bad = {p: m["links"]["unlinked_sample"] for p, m in seen.items() if m["links"]["unlinked"]}
    assert n <= UNLINKED_BUDGET, f"{n} public names in the prose without a link: {bad}"


def _total_links(seen, key):
    return sum(m["links"][key] for m in seen.values())


def test_api_reference_lists_every_public_name(book):
    """The API reference page has a line for every name of every module's `__all__` (read from `dplit/*.py`), linked
    to the anchor of that name (that the anchors exist is `test_internal_links_resolve`); the index is not empty."""
    import ast
    from html import unescape
    page = book / "api.html"
    assert page.is_file(), "no API reference page"
    hrefs = {urlparse(h).fragment for h in map(unescape, _HREF.findall(page.read_text()))}
    missing = []
    for f in sorted((find_root() / "dplit").glob("*.py")):
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                names = ast.literal_eval(node.value)
                if f.stem == "__init__":  # the front door: each name linked to the module that defines it
                    missing += [n for n in names if not any(h.endswith("." + n) for h in hrefs)]
                else:
                    missing += [f"dplit.{f.stem}.{n}" for n in names if f"dplit.{f.stem}.{n}" not in hrefs]
    assert not missing, f"{len(missing)} public names not linked from the API reference: {missing[:20]}"
    index = (book / "genindex.html").read_text()
    assert len(re.findall(r'href="nbs/[^"]+#dplit\.', index)) >= 100, "the index (genindex) is (nearly) empty"
    assert "api.html" in (book / "index.html").read_text(), "the API reference is not in the navigation"


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="build the book and print what a reader sees, per page")
    ap.add_argument("--out", default=None, help="an already built book (default: build one in a temporary folder)")
    ap.add_argument("--shots", default=None, help="save a screenshot of every page into this folder")
    a = ap.parse_args()
    out = Path(a.out).resolve() if a.out else Path(tempfile.mkdtemp(prefix="dplit-book-"))
    if not a.out:
        t0 = time.perf_counter()
        build_book(out=out)
        print(f"built {out} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    t0 = time.perf_counter()
    ms = measure_book(out, shots=a.shots)
    print(report(ms))
    print(reading_report(ms))
    print(links_report(ms))
    print("code column (characters per line, narrowest page):", min(m["code_fit"] for m in ms.values()))
    print(f"(measured {len(ms)} pages in {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
