#!/usr/bin/env bash
# Install, then start the app on http://localhost:${PORT:-8501} with the bundled pretrained models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "starting the app on http://localhost:${PORT:-8501} (its first page loads the model: seconds)"
exec .venv/bin/streamlit run viz_app/app.py --server.port "${PORT:-8501}" --server.headless true "$@"
