#!/usr/bin/env bash
# Install everything into .venv. Usage: bash scripts/setup.sh [--dev]
#   --dev  also test tools and Debian's chromium for the browser tests.
# Prints each step and the packages pip fetches as it goes, with the seconds since the start: a first install
# downloads torch (CPU) and the rest, a few minutes; a later run only checks them (seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
START=$SECONDS
step() { echo "setup [$((SECONDS - START)) s] $*"; }
# pip's own lines, shortened to one per package fetched (its errors go to stderr untouched)
fetching() { sed -un -e 's/^Collecting \([^ ;]*\).*/  fetching \1/p' -e 's/^Installing collected packages.*/  installing them…/p'; }
if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi
step "updating pip"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [ "${1:-}" = "--dev" ]; then
  step "installing the Python packages of requirements-dev.txt (a first install downloads torch: minutes)"
  .venv/bin/python -m pip install -r requirements-dev.txt | fetching
  if ! command -v chromium >/dev/null 2>&1; then
    step "installing Debian's chromium (browser tests)"
    SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
    ($SUDO apt-get update -q && $SUDO apt-get install -y -q chromium) >/dev/null \
      || echo "warning: could not install chromium; browser tests will be skipped" >&2
  fi
else
  step "installing the Python packages of requirements.txt (a first install downloads torch: minutes)"
  .venv/bin/python -m pip install -r requirements.txt | fetching
fi
# The pages' code (package-lock.json): npm ci's postinstall bundles viz_app/browser/ (scripts/build_browser.mjs,
# which the app, the reports and the static explorer load) and builds plotly.js; onnxruntime-web is copied into
# every static explorer folder.
if command -v npm >/dev/null 2>&1; then
  step "installing the page's packages (npm ci: onnxruntime-web, plotly.js)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "warning: npm not found; the pages' code is bundled by it (install Node.js, then rerun this script)" >&2
fi
step "installed"
