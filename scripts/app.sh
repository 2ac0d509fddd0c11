#!/usr/bin/env bash
# Install, then start the app on http://localhost:${PORT:-8501} with the bundled pretrained models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The first start's own work, ahead (viz_app/prepare.py): the default model's opening page and Explore's in-page
# copy of it, into the user cache, so that the first start draws its first map as fast as any later one.
.venv/bin/python -m viz_app prepare
echo "starting the app on http://localhost:${PORT:-8501} (its first page comes from the cache; the model loads behind it)"
exec .venv/bin/streamlit run viz_app/app.py --server.port "${PORT:-8501}" --server.headless true "$@"
