#!/usr/bin/env bash
# Make bench/diffprivlib/.venv: diffprivlib 0.6.6 needs scikit-learn <= 1.7, which the main
# environment (scikit-learn 1.9) cannot hold, so the comparison runs in its own environment.
# Usage: bash bench/diffprivlib/setup.sh  (then bench/diffprivlib/.venv/bin/python run.py ...)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-python3}"
if [ ! -x "$here/.venv/bin/python" ]; then
  "$py" -m venv "$here/.venv"
fi
"$here/.venv/bin/python" -m pip install --quiet --upgrade pip
"$here/.venv/bin/python" -m pip install --quiet \
  "diffprivlib==0.6.6" "scikit-learn>=1.4,<=1.7.99" "numpy<2.4" "pandas" "pyarrow"
"$here/.venv/bin/python" -c "import diffprivlib, sklearn, numpy, pandas; \
print('diffprivlib', diffprivlib.__version__, 'scikit-learn', sklearn.__version__, \
'numpy', numpy.__version__, 'pandas', pandas.__version__)"
