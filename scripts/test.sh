#!/usr/bin/env bash
# Install (with test tools and chromium), then run the whole test suite.
# Tests that need ../shared/data or chromium skip with a reason when those are absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
exec .venv/bin/python -m pytest "$@"
