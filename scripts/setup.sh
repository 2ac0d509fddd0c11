#!/usr/bin/env bash
# Install everything into .venv. Usage: bash scripts/setup.sh [--dev]
#   --dev  also test tools and Debian's chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [ "${1:-}" = "--dev" ]; then
  .venv/bin/python -m pip install -q -r requirements-dev.txt
  if ! command -v chromium >/dev/null 2>&1; then
    SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
    ($SUDO apt-get update -q && $SUDO apt-get install -y -q chromium) >/dev/null \
      || echo "warning: could not install chromium; browser tests will be skipped" >&2
  fi
else
  .venv/bin/python -m pip install -q -r requirements.txt
fi
# The pages' code (package-lock.json): npm ci's postinstall bundles viz_app/browser/ (scripts/build_browser.mjs,
# which the app, the reports and the static explorer load) and builds plotly.js; onnxruntime-web is copied into
# every static explorer folder.
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "warning: npm not found; the pages' code is bundled by it (install Node.js, then rerun this script)" >&2
fi
