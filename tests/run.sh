#!/usr/bin/env bash
# The whole dplit test suite, from a fresh clone: install what is needed, check that notebooks, package and
# README are in sync, run every notebook as a test (nbdev_test), then the package tests (pytest).
# DPLIT_SLOW=1 also runs the long sweeps (`#| slow` cells and @pytest.mark.slow tests).
set -euo pipefail
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
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"
# ---- real-data extras that pip extras cannot express (owned by the data chapter) ----
# ---- end real-data extras ----
. .venv/bin/activate

echo "== notebooks, package and README in sync"
nbdev_clean
nbdev_export
dplit readme
if [ -n "$(git status --porcelain)" ]; then
  echo "FAIL: nbdev_clean/nbdev_export/readme changed the checkout; commit notebooks, dplit/ and README.md together:"
  git status --porcelain | head -30
  exit 1
fi

echo "== every notebook as a test (nbdev_test)"
flags=(); [ "${DPLIT_SLOW:-0}" = 1 ] && flags=(--flags slow)
nbdev_test --n_workers 2 --timing "${flags[@]}"

echo "== package tests (pytest)"
pyflags=(); [ "${DPLIT_SLOW:-0}" = 1 ] && pyflags=(--runslow)
echo "== (set-up, sync check and notebooks took $(( $(date +%s) - t0 )) s)"
python -m pytest tests -n 2 -p no:cacheprovider "${pyflags[@]}"
