#!/usr/bin/env bash
# Install (with test tools and chromium), then run the default test set: every test not marked slow (sized
# for 10 minutes on a 2-core machine; docs/testing.md). Arguments go to pytest after the default selection, so a -m of
# your own replaces it: `-m slow` runs the slow set, `-m "slow or not slow"` everything (CI runs both sets: .ci/run).
# Tests that need ../shared/data or chromium skip with a reason when those are absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
exec .venv/bin/python -m pytest -m "not slow" "$@"
