#!/usr/bin/env bash
# Reproduces every checkpoint in pretrained/ (the exact commands quoted in the model cards).
# Usage: bash scripts/train_pretrained.sh [name ...]   (default: all seven)
# Each run resumes from runs/<name>.state.pt if interrupted; the best dev checkpoint is
# runs/<name>.safetensors, then copied to pretrained/ by scripts/publish_pretrained.py.
# Deviation: DiSAN uses Adam (lr 1e-3) instead of Shen's Adadelta (lr 0.5). Under our CPU
# time budget Adadelta reached only 35-36% SST-5 dev accuracy after 2,000 steps.
# SST runs use the authors' class balancing (--balance: non-neutral phrases and whole
# sentences appear 4 times, as in their released code).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
declare -A CMD=(
  [disan-sst5]="--model disan --task sst5 --optimizer adam --lr 0.001 --balance --epochs 6 --eval-every 1000 --time-budget-min 35"
  [disan-sst5-nodir]="--model disan --task sst5 --ablation nodir --optimizer adam --lr 0.001 --balance --epochs 6 --eval-every 1000 --time-budget-min 35"
  [dsa-sst5]="--model dsa --task sst5 --balance --epochs 6 --eval-every 1000 --time-budget-min 15"
  [dsa-sst5-nodist]="--model dsa --task sst5 --ablation nodist --balance --epochs 6 --eval-every 1000 --time-budget-min 15"
  [disan-nli]="--model disan --task nli --optimizer adam --lr 0.001 --epochs 15 --time-budget-min 25"
  [dsa-nli]="--model dsa --task nli --epochs 15 --time-budget-min 15"
  [dsa-nli-nodist]="--model dsa --task nli --ablation nodist --epochs 15 --time-budget-min 15"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(disan-sst5 disan-sst5-nodir dsa-sst5 dsa-sst5-nodist disan-nli dsa-nli dsa-nli-nodist)
for name in "${names[@]}"; do
  echo "== $name: python -m disan train ${CMD[$name]} --out runs/$name"
  $PY -m disan train ${CMD[$name]} --out "runs/$name" --threads "${THREADS:-1}"
done
